// Counts the statements and transactions a Db runs (bench:statements, bench/verdict-statements):
// counting, not timing, so the figures are exact and do not depend on the machine's load.
import type { Db, Queryable } from '../src/store/db/db.js';

export interface StatementCounts {
  statements: number;
  transactions: number;
  /** Statements by their first words. */
  readonly kinds: Map<string, number>;
  /** Milliseconds spent waiting on each kind of statement (wall clock, overlapping ones add up). */
  readonly waited: Map<string, number>;
}

/** Starts the counts again from zero (e.g. when a measured window opens after a warm-up). */
export function resetCounts(counts: StatementCounts): void {
  counts.statements = 0;
  counts.transactions = 0;
  counts.kinds.clear();
  counts.waited.clear();
}

/** Round trips: every statement, plus the BEGIN and COMMIT of every transaction. */
export const roundTrips = (c: Pick<StatementCounts, 'statements' | 'transactions'>): number =>
  c.statements + 2 * c.transactions;

const kindOf = (sql: string) => sql.replace(/\s+/g, ' ').trim().slice(0, 70);

/**
 * Counts every statement and transaction through `db` (its hot reads' too) from now on. The object is patched in
 * place, so every holder of it (a running service's context) is counted; `uncounted` is the
 * original query, for the caller's own polling.
 */
export function countStatements(db: Db): { counts: StatementCounts; uncounted: Db['query'] } {
  const counts: StatementCounts = { statements: 0, transactions: 0, kinds: new Map(), waited: new Map() };
  const tally = <T>(sql: string, running: Promise<T>): Promise<T> => {
    counts.statements++;
    const kind = kindOf(sql);
    counts.kinds.set(kind, (counts.kinds.get(kind) ?? 0) + 1);
    const started = performance.now();
    const done = () => counts.waited.set(kind, (counts.waited.get(kind) ?? 0) + performance.now() - started);
    running.then(done, done);
    return running;
  };
  const mutable = db as { -readonly [K in keyof Db]: Db[K] };
  const query = db.query.bind(db);
  const transaction = db.transaction.bind(db);
  mutable.query = ((sql: string, params?: never) => tally(sql, query(sql, params))) as Db['query'];
  // The hot reads' own connections (Db.reads) are round trips too.
  if (db.reads !== undefined) {
    const reads = db.reads;
    mutable.reads = {
      query: ((sql: string, params?: never) => tally(sql, reads.query(sql, params))) as Db['query'],
    };
  }
  mutable.transaction = (<T>(fn: (tx: Queryable) => Promise<T>) => {
    counts.transactions++;
    return transaction((tx) =>
      fn({
        query: (sql, params) => tally(sql, tx.query(sql, params)),
      }),
    );
  }) as Db['transaction'];
  return { counts, uncounted: query };
}
