// The embedded adapter: PGlite (PostgreSQL compiled to WebAssembly) in the data folder.
// One process per folder (a lock file), queries run one at a time on the main thread.
import { join } from 'node:path';

import { PGlite, type Transaction } from '@electric-sql/pglite';

import { type DataFolderLock, lockDataFolder } from '../../process/data-folder-lock.js';
import type { Db, Queryable, Row, SqlValue } from './db.js';
import { closableTx, TransactionScope } from './transaction-scope.js';
import { pgliteParsers } from './wire-types.js';

type Runner = Pick<Transaction, 'query' | 'exec'>;

/**
 * A query with parameters runs as one prepared statement. A query without parameters runs
 * through the simple protocol and may hold several statements (migrations do); the rows of
 * the last statement are returned. The pg adapter behaves the same way.
 */
async function run<R extends Row>(runner: Runner, sql: string, params?: readonly SqlValue[]): Promise<R[]> {
  if (params === undefined || params.length === 0) {
    const results = await runner.exec(sql);
    return (results.at(-1)?.rows ?? []) as R[];
  }
  const result = await runner.query<R>(sql, params as unknown[]);
  return result.rows;
}

/**
 * Opens the database kept in `<dataDir>/pglite` (created on first use), locking the
 * folder against a second process, or an in-memory database for 'memory'.
 *
 * PGlite serialises everything: a transaction holds the database from BEGIN to COMMIT,
 * and queries or transactions started meanwhile wait their turn (PGlite's own mutex), so
 * two transactions never interleave.
 */
/** A statement that cannot change data: a plain SELECT (no FOR UPDATE, no data-modifying CTE). */
const READ_ONLY = /^\s*select\b(?![\s\S]*\bfor\s+update\b)/i;

export async function openPgliteDb(dataDir: string | 'memory'): Promise<Db> {
  const lock: DataFolderLock | undefined = dataDir === 'memory' ? undefined : lockDataFolder(dataDir);
  let pglite: PGlite;
  try {
    pglite = await PGlite.create({
      ...(dataDir === 'memory' ? {} : { dataDir: join(dataDir, 'pglite') }),
      parsers: pgliteParsers,
    });
  } catch (err) {
    lock?.release();
    throw err;
  }
  const scope = new TransactionScope();
  let closed = false;

  // Counts transactions and statements that may write, as they begin and as they end: this
  // process is the only writer. While one is under way (from its BEGIN, or its statement, until
  // the caller sees it done) the count is null: a read then may or may not see its changes, and
  // when PGlite's commit becomes visible is not when this code learns of it, so a cache must not
  // trust a number then (balance-cache.ts).
  let writes = 0;
  let writing = 0;
  const begin = () => {
    writing++;
    writes++;
  };
  const end = () => {
    writes++;
    writing--;
  };
  return {
    dialect: 'pglite',
    localWrites: () => (writing > 0 ? null : writes),
    async query<R extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<R[]> {
      scope.assertOutside('query');
      const mayWrite = !READ_ONLY.test(sql);
      if (mayWrite) begin();
      try {
        return await run<R>(pglite, sql, params);
      } finally {
        if (mayWrite) end();
      }
    },
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      scope.assertOutside('transaction');
      let began = false;
      try {
        return await pglite.transaction(async (pgTx) => {
          // Counted from BEGIN: until PGlite runs it, the transaction waits and changes nothing.
          began = true;
          begin();
          const { tx, close } = closableTx((sql, params) => run(pgTx, sql, params));
          try {
            return await scope.run(() => fn(tx));
          } finally {
            close();
          }
        });
      } finally {
        if (began) end();
      }
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      try {
        await pglite.close();
      } finally {
        lock?.release();
      }
    },
  };
}
