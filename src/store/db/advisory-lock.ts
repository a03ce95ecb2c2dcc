// Transaction-scoped advisory locks: the one way this service makes several instances on one
// PostgreSQL database take turns (migrations, score draws, the token deploy). A lock is held
// until the transaction that took it commits or rolls back; on PGlite, where transactions run
// one at a time anyway, it costs nothing.
import type { Queryable } from './db.js';

/** Waits for the advisory lock `key` and holds it until `tx` ends (`tx`: a transaction handle). */
export async function holdTransactionLock(tx: Queryable, key: number): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1)', [key]);
}
