// Transactions on PostgreSQL that take turns, one statement each: what a test needs to run
// concurrent transactions interleaved as two processes may run them (the first statement of
// each, then the second of each, ...) without knowing what the statements are. A transaction
// whose statement waits for a lock gives its turn to the next, so the others go on and
// PostgreSQL finds the deadlock, if they make one (one of them then fails with 40P01).
import type { Db, Queryable, Row, SqlValue } from '../../src/store/db/db.js';
import { backendPid } from './held-transaction.js';

/** Between statements (its turn waits for its next), ready to run one, running one, waiting for a lock, or done. */
type Stage = 'between' | 'ready' | 'running' | 'waiting' | 'done';

const POLL_MS = 10;

export class StatementTurns {
  readonly #stages: Stage[];
  readonly #go = new Map<number, () => void>();
  #last = -1;

  /**
   * `count` transactions, numbered from 0 (who goes first); `watcher` sees which backends wait
   * for a lock (outside the transactions: a Db none of them runs on).
   */
  constructor(
    private readonly watcher: Queryable,
    count: number,
  ) {
    this.#stages = Array.from({ length: count }, () => 'between');
  }

  /** Runs `work` in a transaction of `db` as transaction `who`, its statements in turn. */
  run<T>(db: Db, who: number, work: (tx: Queryable) => Promise<T>): Promise<T> {
    return db.transaction(async (tx) => {
      const pid = await backendPid(tx);
      try {
        return await work({
          query: <R extends Row = Row>(sql: string, params?: readonly SqlValue[]) =>
            this.#statement(who, pid, () => tx.query<R>(sql, params)),
        });
      } finally {
        this.#stages[who] = 'done';
        this.#next();
      }
    });
  }

  async #statement<R>(who: number, pid: number, run: () => Promise<R>): Promise<R> {
    await new Promise<void>((resolve) => {
      this.#go.set(who, resolve);
      this.#stages[who] = 'ready';
      this.#next();
    });
    const running = run();
    try {
      await this.#settledOrWaiting(who, pid, running);
      return await running;
    } finally {
      this.#stages[who] = 'between';
      this.#next();
    }
  }

  /** Resolves once `running` settles; gives the turn away meanwhile if it waits for a lock. */
  async #settledOrWaiting(who: number, pid: number, running: Promise<unknown>): Promise<void> {
    let settled = false;
    const done = running.then(
      () => {
        settled = true;
      },
      () => {
        settled = true;
      },
    );
    while (!settled) {
      await Promise.race([done, new Promise((r) => setTimeout(r, POLL_MS))]);
      if (settled || !(await this.#waits(pid))) continue;
      this.#stages[who] = 'waiting';
      this.#next();
      await done;
    }
  }

  async #waits(pid: number): Promise<boolean> {
    const [row] = await this.watcher.query<{ waits: boolean }>(
      'SELECT cardinality(pg_blocking_pids($1::int)) > 0 AS waits',
      [pid],
    );
    return row?.waits === true;
  }

  /**
   * Lets the next transaction after the last one to go run its statement, once it has one
   * ready: none while one runs, and the waiting and done ones are passed over.
   */
  #next(): void {
    if (this.#stages.includes('running')) return;
    const n = this.#stages.length;
    for (let k = 1; k <= n; k++) {
      const who = (this.#last + k) % n;
      const stage = this.#stages[who];
      if (stage === 'waiting' || stage === 'done') continue;
      if (stage === 'between') return;
      this.#last = who;
      this.#stages[who] = 'running';
      const go = this.#go.get(who)!;
      this.#go.delete(who);
      go();
      return;
    }
  }
}
