// A Db that counts the transactions run through it, for the suites that check a batch of work
// is one database transaction; everything else goes straight to the Db it wraps.
import type { Db } from '../../src/store/db/db.js';

export function countingTransactions(db: Db): { readonly db: Db; transactions(): number } {
  let transactions = 0;
  return {
    db: {
      dialect: db.dialect,
      ...(db.localWrites !== undefined && { localWrites: db.localWrites }),
      query: (sql, params) => db.query(sql, params),
      transaction: (fn) => {
        transactions++;
        return db.transaction(fn);
      },
      close: () => db.close(),
    },
    transactions: () => transactions,
  };
}
