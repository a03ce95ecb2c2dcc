// The lock a start holds while it looks for a live admin key and makes one, so that instances
// starting at once on one PostgreSQL database make one key between them (one per database).
import type { Queryable } from './db.js';

/** Advisory lock key of the first admin key (any constant unique to this use). */
export const ADMIN_KEY_LOCK = 7_364_821_004;

/** Holds the admin key lock until the transaction `tx` ends. */
export async function lockAdminKey(tx: Queryable): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1)', [ADMIN_KEY_LOCK]);
}
