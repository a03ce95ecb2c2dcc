// How long this process held the change feed's score lock (store/feed/score.ts), summed: the
// serial part of every write that draws scores, the cap on how far more cores can scale
// (docs/performance.md "Efficiency"). Measured around the transaction, not inside PostgreSQL: a
// holder's interval runs from the moment the statement that takes the lock is sent (or, when
// this process's previous holder released it later, from that release: the lock is one at a
// time) until its COMMIT or ROLLBACK answered. That counts the round trips the lock is held
// across, as the lock really is, and never counts two holders of this process at once.
import { SCORE_LOCK_KEY } from '../feed/score.js';

const LOCK_TEXT = `pg_advisory_xact_lock(${SCORE_LOCK_KEY})`;

let heldSeconds = 0;
let holds = 0;
let lastRelease = Number.NEGATIVE_INFINITY;

/** True when the statement takes the score lock (written inline, or lockScores' parameter). */
export function takesScoreLock(sql: string, params?: readonly unknown[]): boolean {
  return (
    sql.includes(LOCK_TEXT) ||
    (sql.includes('pg_advisory_xact_lock($1)') && Number(params?.[0]) === SCORE_LOCK_KEY)
  );
}

/** The lock's holder ended (commit or rollback) at `now`; it began sending its lock statement at `sentAt` (performance.now() ms). */
export function recordScoreLockHeld(sentAt: number, now = performance.now()): void {
  const from = Math.max(sentAt, lastRelease);
  heldSeconds += Math.max(0, now - from) / 1000;
  holds++;
  lastRelease = now;
}

/** Totals since the process started: seconds held, and how many transactions held it. */
export function scoreLockTotals(): { readonly heldSeconds: number; readonly holds: number } {
  return { heldSeconds, holds };
}
