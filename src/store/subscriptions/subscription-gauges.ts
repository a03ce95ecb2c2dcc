// What the address webhooks' alerting gauges read at scrape time (src/metrics/service-gauges.ts):
// how far the dispatcher's cursor is behind the change feed, and the oldest event still pending.
// Both read a few rows: the feed's newest score through its score index, the pending events
// through the partial index subscription_events_due.
import type { Queryable } from '../db/db.js';

/**
 * The newest feed score less the dispatcher's cursor (0: caught up). Scores have gaps (rolled
 * back draws), so this is an upper bound on the feed records not yet dispatched.
 */
export async function dispatchLagScores(q: Queryable): Promise<bigint> {
  const rows = await q.query<{ lag: string | null }>(
    `SELECT (GREATEST((SELECT max(score) FROM transactions), c.score) - c.score)::text AS lag
       FROM subscription_cursor c WHERE c.id = 1`,
  );
  return BigInt(rows[0]?.lag ?? '0');
}

/** Seconds since the oldest address webhook event still pending was written (0: none pending). */
export async function oldestPendingSubscriptionEventAge(q: Queryable): Promise<number> {
  const rows = await q.query<{ age: number | string | null }>(
    `SELECT extract(epoch FROM now() - min(created_at))::float8 AS age
       FROM subscription_events WHERE state = 'pending'`,
  );
  return Math.max(0, Number(rows[0]?.age ?? 0));
}
