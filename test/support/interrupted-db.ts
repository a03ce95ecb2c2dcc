// A database handle on which another writer commits between two statements, on purpose: what a
// test of a check-then-act race needs to make the race happen every time.
import type { Db, Queryable } from '../../src/store/db/db.js';

/**
 * `db` that, once, after the first statement matching `at` (inside a transaction when `inTx`),
 * runs `meanwhile` before answering it: another writer committing between two reads.
 */
export function interruptedDb(
  db: Db,
  at: RegExp,
  meanwhile: (tx: Queryable) => Promise<void>,
  inTx: boolean,
): Db {
  let done = false;
  const hooked = (q: Queryable): Queryable => ({
    query: async (sql, params) => {
      const rows = await q.query(sql, params);
      if (!done && at.test(sql)) {
        done = true;
        await meanwhile(q);
      }
      return rows as never;
    },
  });
  return Object.assign(Object.create(db) as Db, {
    ...(inTx ? { query: db.query.bind(db) } : hooked(db)),
    transaction: <T>(fn: (tx: Queryable) => Promise<T>) => db.transaction((tx) => fn(inTx ? hooked(tx) : tx)),
  });
}
