// Catches a classic mistake early: calling db.query or db.transaction from inside
// db.transaction(fn). On PGlite that waits for the transaction that is waiting for it (a
// deadlock); on PostgreSQL it silently runs outside the transaction. Inside fn, use only tx.
import { AsyncLocalStorage } from 'node:async_hooks';

import type { Queryable, Row, SqlValue } from './db.js';

export class TransactionScope {
  readonly #active = new AsyncLocalStorage<true>();

  /** Runs fn marked as inside a transaction of this database. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    return this.#active.run(true, fn);
  }

  /** Throws when called from code running inside a transaction of this database. */
  assertOutside(what: 'query' | 'transaction'): void {
    if (this.#active.getStore() === true) {
      throw new Error(
        `db.${what}() called inside db.transaction(): use the tx handed to the callback (nested transactions are not supported)`,
      );
    }
  }
}

/** Wraps a transaction handle so that any use after the transaction ended fails loudly. */
export function closableTx(run: (sql: string, params?: readonly SqlValue[]) => Promise<Row[]>): {
  tx: Queryable;
  close: () => void;
} {
  let closed = false;
  const tx: Queryable = {
    query<R extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<R[]> {
      if (closed) return Promise.reject(new Error('transaction is closed: tx used after its callback ended'));
      return run(sql, params) as Promise<R[]>;
    },
  };
  return {
    tx,
    close: () => {
      closed = true;
    },
  };
}
