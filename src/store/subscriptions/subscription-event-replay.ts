// Reading a subscription's events back, for its owner (the replay endpoints): pages by score
// that never split a score's events, one event by its webhook-id, an event's attempts, sending
// one again from now (redelivery), counts by state, and the feed's end a test event is listed
// at. Writing, leasing and settling the events is subscription-events.ts.
import { MAX_SCORE } from '../../domain/index-bounds.js';
import type { Queryable } from '../db/db.js';
import type { AttemptRecord } from './subscription-events.js';

export interface SubscriptionEventInfo {
  readonly id: string;
  readonly webhookId: string;
  readonly type: string;
  readonly score: bigint;
  readonly payload: unknown;
  readonly state: 'pending' | 'delivered' | 'failed' | 'skipped';
  readonly attempts: number;
  readonly nextAttemptAt: Date | null;
  readonly deliveredAt: Date | null;
  readonly lastError: string | null;
  readonly createdAt: Date;
}

interface EventRow {
  id: string;
  webhook_id: string;
  type: string;
  score: string;
  payload: unknown;
  state: SubscriptionEventInfo['state'];
  attempts: number;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
  last_error: string | null;
  created_at: Date;
  [column: string]: unknown;
}

// Qualified: `score` and `id` are also the names of their text renderings (ORDER BY would take those).
const EVENT_COLUMNS =
  'e.id::text AS id, e.webhook_id, e.type, e.score::text AS score, e.payload, e.state, e.attempts, e.next_attempt_at, e.delivered_at, e.last_error, e.created_at';

function toEvent(r: EventRow): SubscriptionEventInfo {
  return {
    id: r.id,
    webhookId: r.webhook_id,
    type: r.type,
    score: BigInt(r.score),
    payload: r.payload,
    state: r.state,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at,
    deliveredAt: r.delivered_at,
    lastError: r.last_error,
    createdAt: r.created_at,
  };
}

/**
 * A page of a subscription's events by score: `asc` above `from`, `desc` below it (0: from the
 * newest); at most `limit` events, plus the rest of the last score's (a score's events are
 * never split between two pages).
 */
export async function subscriptionEventPage(
  q: Queryable,
  query: {
    readonly subscriptionId: string;
    readonly from: bigint;
    readonly order: 'asc' | 'desc';
    readonly limit: number;
  },
): Promise<SubscriptionEventInfo[]> {
  const asc = query.order === 'asc';
  const bound = asc || query.from !== 0n ? query.from : MAX_SCORE;
  const dir = asc ? 'ASC' : 'DESC';
  const rows = await q.query<EventRow>(
    `WITH page AS (
       SELECT score FROM subscription_events
        WHERE subscription_id = $1 AND score ${asc ? '>' : '<'} $2
        ORDER BY score ${dir}, id ${dir} LIMIT $3
     )
     SELECT ${EVENT_COLUMNS} FROM subscription_events e
      WHERE e.subscription_id = $1 AND e.score ${asc ? '>' : '<'} $2
        AND e.score ${asc ? '<=' : '>='} (SELECT ${asc ? 'max' : 'min'}(score) FROM page)
      ORDER BY e.score ${dir}, e.id ${dir}`,
    [query.subscriptionId, bound, query.limit],
  );
  return rows.map(toEvent);
}

export async function subscriptionEventByWebhookId(
  q: Queryable,
  subscriptionId: string,
  webhookId: string,
): Promise<SubscriptionEventInfo | null> {
  const rows = await q.query<EventRow>(
    `SELECT ${EVENT_COLUMNS} FROM subscription_events e WHERE e.subscription_id = $1 AND e.webhook_id = $2`,
    [subscriptionId, webhookId],
  );
  return rows[0] === undefined ? null : toEvent(rows[0]);
}

/** Every attempt of an event, oldest first. */
export async function attemptsOfEvent(q: Queryable, eventId: string): Promise<AttemptRecord[]> {
  const rows = await q.query<{
    at: Date;
    status_code: number | null;
    latency_ms: number;
    error: string | null;
  }>(
    'SELECT at, status_code, latency_ms, error FROM subscription_delivery_attempts WHERE event_id = $1 ORDER BY at, id',
    [eventId],
  );
  return rows.map((r) => ({ at: r.at, statusCode: r.status_code, latencyMs: r.latency_ms, error: r.error }));
}

/**
 * Sends an event again from now, with a fresh retry window (the same webhook-id): its attempts
 * count from zero again, so the schedule starts at its first step (the attempts log keeps every
 * attempt); false, and
 * nothing changed, while a deliverer holds it (its attempt under way is the send, and clearing
 * its lease would let another deliverer send it too and drop that attempt from the log). A
 * lease run out (a deliverer gone) is taken back.
 */
export async function redeliverSubscriptionEvent(q: Queryable, eventId: string, now: Date): Promise<boolean> {
  const rows = await q.query(
    `UPDATE subscription_events SET state = 'pending', next_attempt_at = $2, first_attempt_at = NULL,
            attempts = 0, lease_owner = NULL, lease_until = NULL
      WHERE id = $1 AND (lease_until IS NULL OR lease_until < $2)
      RETURNING 1`,
    [eventId, now],
  );
  return rows.length > 0;
}

/** The feed's current end: the score a test event is listed at. */
export async function feedEnd(q: Queryable): Promise<bigint> {
  const rows = await q.query<{ s: string }>('SELECT COALESCE(max(score), 0)::text AS s FROM transactions');
  return BigInt(rows[0]!.s);
}

/** Counts of a subscription's events by state (the subscription's answer). */
export async function eventCountsByState(
  q: Queryable,
  subscriptionId: string,
): Promise<Record<string, number>> {
  const rows = await q.query<{ state: string; n: string }>(
    'SELECT state, count(*) AS n FROM subscription_events WHERE subscription_id = $1 GROUP BY state',
    [subscriptionId],
  );
  return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
}
