// Reads that must agree with each other (an audit comparing tables): run in one snapshot of the
// database, so that no transaction committing meanwhile shows half its writes.
import type { Db, Queryable } from './db.js';

/** Runs `read` in one read-only REPEATABLE READ transaction: every statement sees the same snapshot. */
export function inOneSnapshot<T>(db: Db, read: (q: Queryable) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
    return read(tx);
  });
}
