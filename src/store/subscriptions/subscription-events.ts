// The events of address subscriptions and their delivery: written by the dispatcher (one row
// per subscription, txid, address, status and score: a second write of the same change is a
// no-op), leased by deliverers with FOR UPDATE SKIP LOCKED (a lease is the row's owner and
// deadline: an event is sent by one deliverer at a time), each attempt logged. A subscription
// whose attempts have failed for longer than the disable window is disabled with the reason,
// its pending events skipped.
import type { Queryable } from '../db/db.js';

export interface NewSubscriptionEvent {
  readonly webhookId: string;
  readonly subscriptionId: string;
  readonly type: string;
  readonly txid: string | null;
  readonly address: string | null;
  readonly status: string | null;
  readonly score: bigint;
  readonly payload: unknown;
  /** pending: to send now; skipped: recorded for the replay list only (a disabled subscription). */
  readonly state: 'pending' | 'skipped';
}

/** Writes events (a change already written is left as it is); answers how many were new. */
export async function insertSubscriptionEvents(
  tx: Queryable,
  events: readonly NewSubscriptionEvent[],
  now: Date,
): Promise<number> {
  if (events.length === 0) return 0;
  const rows = await tx.query<{ n: string }>(
    `WITH ins AS (
       INSERT INTO subscription_events (webhook_id, subscription_id, type, txid, address, status, score, payload,
                                        state, next_attempt_at, last_error, created_at)
       SELECT e.webhook_id, e.subscription_id::uuid, e.type, e.txid, e.address, e.status, e.score,
              e.payload::jsonb, e.state, CASE WHEN e.state = 'pending' THEN $10::timestamptz END,
              CASE WHEN e.state = 'skipped' THEN 'not sent: the subscription is disabled' END, $10
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[],
                     $8::text[], $9::text[])
              AS e(webhook_id, subscription_id, type, txid, address, status, score, payload, state)
       ON CONFLICT DO NOTHING RETURNING 1)
     SELECT count(*) AS n FROM ins`,
    [
      events.map((e) => e.webhookId),
      events.map((e) => e.subscriptionId),
      events.map((e) => e.type),
      events.map((e) => e.txid),
      events.map((e) => e.address),
      events.map((e) => e.status),
      events.map((e) => e.score.toString()),
      events.map((e) => JSON.stringify(e.payload)),
      events.map((e) => e.state),
      now,
    ],
  );
  return Number(rows[0]?.n ?? 0);
}

export interface LeasedSubscriptionEvent {
  readonly id: string;
  readonly webhookId: string;
  readonly subscriptionId: string;
  readonly url: string;
  /** scheme://host[:port] of the URL (receiver-slots.ts). */
  readonly origin: string;
  readonly secretEnc: Uint8Array;
  readonly payload: unknown;
  readonly attempts: number;
  readonly firstAttemptAt: Date | null;
  readonly leaseUntil: Date;
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** Leases up to `limit` due events of enabled subscriptions to `owner` until now + leaseMs. */
export async function leaseSubscriptionEvents(
  q: Queryable,
  opts: { readonly owner: string; readonly now: Date; readonly leaseMs: number; readonly limit: number },
): Promise<LeasedSubscriptionEvent[]> {
  const until = new Date(opts.now.getTime() + opts.leaseMs);
  const rows = await q.query<{
    id: string;
    webhook_id: string;
    subscription_id: string;
    url: string;
    secret_enc: Uint8Array;
    payload: unknown;
    attempts: number;
    first_attempt_at: Date | null;
  }>(
    `WITH due AS (
       SELECT e.id FROM subscription_events e
         JOIN subscriptions s ON s.id = e.subscription_id AND s.enabled
        WHERE e.state = 'pending' AND e.next_attempt_at <= $1
          AND (e.lease_until IS NULL OR e.lease_until < $1)
        ORDER BY e.next_attempt_at, e.id
        LIMIT $4
        FOR UPDATE OF e SKIP LOCKED
     ), leased AS (
       UPDATE subscription_events e SET lease_owner = $2, lease_until = $3 FROM due WHERE e.id = due.id
       RETURNING e.id AS event_id, e.webhook_id, e.subscription_id, e.payload, e.attempts, e.first_attempt_at
     )
     SELECT l.event_id::text AS id, l.webhook_id, l.subscription_id, s.url, s.secret_enc, l.payload, l.attempts,
            l.first_attempt_at
       FROM leased l JOIN subscriptions s ON s.id = l.subscription_id
      ORDER BY l.event_id`,
    [opts.now, opts.owner, until, opts.limit],
  );
  return rows.map((r) => ({
    id: r.id,
    webhookId: r.webhook_id,
    subscriptionId: r.subscription_id,
    url: r.url,
    origin: originOf(r.url),
    secretEnc: r.secret_enc,
    payload: r.payload,
    attempts: r.attempts,
    firstAttemptAt: r.first_attempt_at,
    leaseUntil: until,
  }));
}

/** Gives a leased event back unattempted. */
export async function releaseSubscriptionEvent(q: Queryable, id: string, owner: string): Promise<void> {
  await q.query(
    'UPDATE subscription_events SET lease_owner = NULL, lease_until = NULL WHERE id = $1 AND lease_owner = $2',
    [id, owner],
  );
}

export interface AttemptRecord {
  readonly at: Date;
  readonly statusCode: number | null;
  readonly latencyMs: number;
  readonly error: string | null;
}

export type SubscriptionOutcome =
  | { readonly kind: 'delivered' }
  | { readonly kind: 'retry'; readonly at: Date }
  | { readonly kind: 'failed' }
  /** The receiver answered 410 Gone: the subscription is disabled at once. */
  | { readonly kind: 'gone' };

/**
 * Writes one attempt and its outcome, if `owner` still holds the event's lease, and what it
 * means for the subscription: a delivery ends its run of failures; a failure starts one (or
 * continues it) and, once the run is `disableAfterMs` old, disables it with the reason.
 * Answers whether the subscription was disabled by this attempt.
 */
export async function recordSubscriptionAttempt(
  tx: Queryable,
  opts: {
    readonly eventId: string;
    readonly subscriptionId: string;
    readonly owner: string;
    readonly attempt: AttemptRecord;
    readonly outcome: SubscriptionOutcome;
    readonly disableAfterMs: number;
  },
): Promise<{ readonly recorded: boolean; readonly disabled: boolean }> {
  const { attempt, outcome } = opts;
  const state =
    outcome.kind === 'delivered'
      ? 'delivered'
      : outcome.kind === 'retry'
        ? 'pending'
        : outcome.kind === 'gone'
          ? 'skipped'
          : 'failed';
  const updated = await tx.query<{ id: string }>(
    `UPDATE subscription_events SET state = $3, attempts = attempts + 1,
            first_attempt_at = COALESCE(first_attempt_at, $4),
            next_attempt_at = $5, delivered_at = CASE WHEN $3 = 'delivered' THEN $4 END,
            last_error = $6, lease_owner = NULL, lease_until = NULL
      WHERE id = $1 AND lease_owner = $2 RETURNING id::text AS id`,
    [
      opts.eventId,
      opts.owner,
      state,
      attempt.at,
      outcome.kind === 'retry' ? outcome.at : null,
      attempt.error,
    ],
  );
  if (updated.length === 0) return { recorded: false, disabled: false };
  await tx.query(
    'INSERT INTO subscription_delivery_attempts (event_id, at, status_code, latency_ms, error) VALUES ($1, $2, $3, $4, $5)',
    [opts.eventId, attempt.at, attempt.statusCode, attempt.latencyMs, attempt.error],
  );
  if (outcome.kind === 'delivered') {
    await tx.query(
      'UPDATE subscriptions SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL',
      [opts.subscriptionId],
    );
    return { recorded: true, disabled: false };
  }
  const since = new Date(attempt.at.getTime() - opts.disableAfterMs);
  const reason =
    outcome.kind === 'gone'
      ? `the receiver answered 410 Gone at ${attempt.at.toISOString()}`
      : `deliveries failed since {since} (${opts.disableAfterMs} ms or more); the last at ${attempt.at.toISOString()}: ${attempt.error ?? 'no answer'}`;
  const rows = await tx.query<{ disabled: boolean }>(
    `UPDATE subscriptions SET failing_since = COALESCE(failing_since, $2),
            enabled = CASE WHEN $4 OR COALESCE(failing_since, $2) <= $3 THEN false ELSE enabled END,
            disabled_at = CASE WHEN enabled AND ($4 OR COALESCE(failing_since, $2) <= $3) THEN $2 ELSE disabled_at END,
            disabled_reason = CASE WHEN enabled AND ($4 OR COALESCE(failing_since, $2) <= $3)
                                   THEN replace($5, '{since}', to_char(COALESCE(failing_since, $2) AT TIME ZONE 'UTC',
                                                                       'YYYY-MM-DD"T"HH24:MI:SS"Z"'))
                                   ELSE disabled_reason END
      WHERE id = $1
      RETURNING NOT enabled AS disabled`,
    [opts.subscriptionId, attempt.at, since, outcome.kind === 'gone', reason],
  );
  const disabled = rows[0]?.disabled === true;
  if (disabled) {
    await tx.query(
      `UPDATE subscription_events SET state = 'skipped', last_error = 'not sent: the subscription was disabled'
        WHERE subscription_id = $1 AND state = 'pending' AND lease_owner IS NULL`,
      [opts.subscriptionId],
    );
  }
  return { recorded: true, disabled };
}

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

/** The largest score a bigint column holds: the open upper bound of a `desc` read. */
const MAX_SCORE = 2n ** 63n - 1n;

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
    'SELECT at, status_code, latency_ms, error FROM subscription_delivery_attempts WHERE event_id = $1 ORDER BY at',
    [eventId],
  );
  return rows.map((r) => ({ at: r.at, statusCode: r.status_code, latencyMs: r.latency_ms, error: r.error }));
}

/** Sends an event again from now, with a fresh retry window (the same webhook-id). */
export async function redeliverSubscriptionEvent(q: Queryable, eventId: string, now: Date): Promise<void> {
  await q.query(
    `UPDATE subscription_events SET state = 'pending', next_attempt_at = $2, first_attempt_at = NULL,
            lease_owner = NULL, lease_until = NULL
      WHERE id = $1`,
    [eventId, now],
  );
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
