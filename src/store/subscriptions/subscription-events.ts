// The events of address subscriptions and their delivery: written by the dispatcher (one row
// per subscription, txid, address, status and score: a second write of the same change is a
// no-op), leased by deliverers with FOR UPDATE SKIP LOCKED (a lease is the row's owner and
// deadline: an event is sent by one deliverer at a time), each attempt logged. A subscription
// whose attempts have failed for longer than the disable window is disabled with the reason,
// its pending events skipped. Reading them back (pages, attempts, redelivery) is
// subscription-event-replay.ts.
import {
  CHOSEN_WITHIN_ROOM_SQL,
  type LeaseRequest,
  receiverOriginSql,
  roomParameters,
} from '../callbacks/receiver-lease.js';
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

const ORIGIN_SQL = receiverOriginSql('s.url');

/**
 * Leases up to `limit` due events of enabled subscriptions to `owner` until now + leaseMs, oldest
 * due first: at most the room of each receiver, none of the busy receivers. One receiver's
 * backlog so never fills a deliverer's hand while other receivers' events wait (the callbacks'
 * lease, callback-outbox.ts, does the same).
 */
export async function leaseSubscriptionEvents(
  q: Queryable,
  opts: LeaseRequest,
): Promise<LeasedSubscriptionEvent[]> {
  if (opts.limit <= 0) return [];
  const until = new Date(opts.now.getTime() + opts.leaseMs);
  const rows = await q.query<{
    id: string;
    webhook_id: string;
    subscription_id: string;
    url: string;
    origin: string;
    secret_enc: Uint8Array;
    payload: unknown;
    attempts: number;
    first_attempt_at: Date | null;
  }>(
    `WITH candidates AS (
       SELECT e.id, e.next_attempt_at, s.origin
         FROM subscription_events e
        CROSS JOIN LATERAL (SELECT ${ORIGIN_SQL} AS origin FROM subscriptions s
                             WHERE s.id = e.subscription_id AND s.enabled OFFSET 0) s
        WHERE e.state = 'pending' AND e.next_attempt_at <= $1
          AND (e.lease_until IS NULL OR e.lease_until < $1)
          AND s.origin <> ALL($5::text[])
        ORDER BY e.next_attempt_at, e.id
        LIMIT $6
        FOR UPDATE OF e SKIP LOCKED
     ), ${CHOSEN_WITHIN_ROOM_SQL}, leased AS (
       UPDATE subscription_events e SET lease_owner = $2, lease_until = $3 FROM chosen WHERE e.id = chosen.id
       RETURNING e.id AS event_id, e.webhook_id, e.subscription_id, e.payload, e.attempts, e.first_attempt_at
     )
     SELECT l.event_id::text AS id, l.webhook_id, l.subscription_id, s.url, ${ORIGIN_SQL} AS origin, s.secret_enc,
            l.payload, l.attempts, l.first_attempt_at
       FROM leased l JOIN subscriptions s ON s.id = l.subscription_id
      ORDER BY l.event_id`,
    [opts.now, opts.owner, until, ...roomParameters(opts)],
  );
  return rows.map((r) => ({
    id: r.id,
    webhookId: r.webhook_id,
    subscriptionId: r.subscription_id,
    url: r.url,
    origin: r.origin,
    secretEnc: r.secret_enc,
    payload: r.payload,
    attempts: r.attempts,
    firstAttemptAt: r.first_attempt_at,
    leaseUntil: until,
  }));
}

/** Where a leased event goes now, read just before its send. */
export interface LeaseStanding {
  readonly url: string;
  readonly secretEnc: Uint8Array;
  /** false: the subscription was disabled while the event waited in hand. */
  readonly enabled: boolean;
}

/**
 * The subscriptions of events `owner` still holds pending, as they stand now: an event waits in
 * a deliverer's hand up to a lease, and meanwhile its subscription may have been disabled,
 * deleted, pointed at another URL or given a new secret. An event missing from the answer is no
 * longer this deliverer's to send.
 */
export async function standingOfLeased(
  q: Queryable,
  owner: string,
  ids: readonly string[],
): Promise<Map<string, LeaseStanding>> {
  if (ids.length === 0) return new Map();
  const rows = await q.query<{ id: string; url: string; secret_enc: Uint8Array; enabled: boolean }>(
    `SELECT e.id::text AS id, s.url, s.secret_enc, s.enabled
       FROM subscription_events e JOIN subscriptions s ON s.id = e.subscription_id
      WHERE e.id = ANY($1::bigint[]) AND e.lease_owner = $2 AND e.state = 'pending'`,
    [[...ids], owner],
  );
  return new Map(rows.map((r) => [r.id, { url: r.url, secretEnc: r.secret_enc, enabled: r.enabled }]));
}

/** Ends a held event unsent: its subscription was disabled while it waited in hand. */
export async function skipLeasedEvent(q: Queryable, id: string, owner: string): Promise<void> {
  await q.query(
    `UPDATE subscription_events SET state = 'skipped', last_error = 'not sent: the subscription was disabled',
            lease_owner = NULL, lease_until = NULL
      WHERE id = $1 AND lease_owner = $2 AND state = 'pending'`,
    [id, owner],
  );
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

export interface AttemptWrite {
  readonly eventId: string;
  readonly subscriptionId: string;
  readonly attempt: AttemptRecord;
  readonly outcome: SubscriptionOutcome;
}

function stateOf(outcome: SubscriptionOutcome): string {
  if (outcome.kind === 'delivered') return 'delivered';
  if (outcome.kind === 'retry') return 'pending';
  return outcome.kind === 'gone' ? 'skipped' : 'failed';
}

/**
 * Writes attempts and their outcomes (those whose event `owner` still holds) in one statement
 * (a failed attempt of a subscription disabled while it was on its way is not tried again: the
 * event is skipped, as its subscription's other pending events were),
 * then what they mean for their subscriptions: one whose latest attempt here was delivered
 * ends its run of failures; one whose latest failed starts a run (or continues it) and, once
 * the run is `disableAfterMs` old, or at a 410 Gone, is disabled with the reason and its
 * pending events skipped. Answers the events written and the subscriptions disabled.
 */
export async function recordSubscriptionAttempts(
  tx: Queryable,
  owner: string,
  writes: readonly AttemptWrite[],
  disableAfterMs: number,
): Promise<{ readonly recorded: ReadonlySet<string>; readonly disabled: readonly string[] }> {
  if (writes.length === 0) return { recorded: new Set(), disabled: [] };
  const rows = await tx.query<{ id: string }>(
    `WITH u AS (
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::timestamptz[], $4::timestamptz[], $5::text[], $6::int[],
                            $7::int[]) AS u(id, state, at, next_at, error, status_code, latency_ms)
     ), upd AS (
       UPDATE subscription_events e
          SET state = CASE WHEN u.state = 'pending' AND NOT s.enabled THEN 'skipped' ELSE u.state END,
              attempts = e.attempts + 1,
              first_attempt_at = COALESCE(e.first_attempt_at, u.at),
              next_attempt_at = CASE WHEN s.enabled THEN u.next_at END,
              delivered_at = CASE WHEN u.state = 'delivered' THEN u.at END, last_error = u.error,
              lease_owner = NULL, lease_until = NULL
         FROM u, subscriptions s
        WHERE e.id = u.id AND e.lease_owner = $8 AND s.id = e.subscription_id
       RETURNING e.id
     ), ins AS (
       INSERT INTO subscription_delivery_attempts (event_id, at, status_code, latency_ms, error)
       SELECT u.id, u.at, u.status_code, u.latency_ms, u.error FROM u JOIN upd ON upd.id = u.id
     )
     SELECT id::text AS id FROM upd`,
    [
      writes.map((w) => w.eventId),
      writes.map((w) => stateOf(w.outcome)),
      writes.map((w) => w.attempt.at.toISOString()),
      writes.map((w) => (w.outcome.kind === 'retry' ? w.outcome.at.toISOString() : null)),
      writes.map((w) => w.attempt.error),
      writes.map((w) => (w.attempt.statusCode === null ? null : String(w.attempt.statusCode))),
      writes.map((w) => String(w.attempt.latencyMs)),
      owner,
    ],
  );
  const recorded = new Set(rows.map((r) => r.id));
  const { working, runs } = runsOf(writes, recorded);
  const recovering = await holdWritten(tx, [...runs.keys()], working);
  const disabled: string[] = [];
  for (const [id, run] of runs)
    if (await failing(tx, id, run.failures, run.afterDelivery, disableAfterMs)) disabled.push(id);
  if (recovering.length > 0)
    await tx.query(
      'UPDATE subscriptions SET failing_since = NULL WHERE id = ANY($1::uuid[]) AND failing_since IS NOT NULL',
      [recovering],
    );
  if (disabled.length > 0)
    await tx.query(
      `UPDATE subscription_events SET state = 'skipped', last_error = 'not sent: the subscription was disabled'
        WHERE subscription_id = ANY($1::uuid[]) AND state = 'pending' AND lease_owner IS NULL`,
      [disabled],
    );
  return { recorded, disabled };
}

/** A subscription's failed attempts since its last delivered one in a record (oldest first). */
interface FailureRun {
  readonly failures: readonly AttemptWrite[];
  /** One of its attempts in the same record was delivered, before these. */
  readonly afterDelivery: boolean;
}

/**
 * The recorded attempts by subscription, each judged by its latest: delivered (working), or
 * failed (its run of failures), in the order the subscriptions first appear in `writes`.
 */
function runsOf(
  writes: readonly AttemptWrite[],
  recorded: ReadonlySet<string>,
): { working: string[]; runs: Map<string, FailureRun> } {
  const bySubscription = new Map<string, AttemptWrite[]>();
  for (const w of writes) {
    if (!recorded.has(w.eventId)) continue;
    const list = bySubscription.get(w.subscriptionId) ?? [];
    list.push(w);
    bySubscription.set(w.subscriptionId, list);
  }
  const working: string[] = [];
  const runs = new Map<string, FailureRun>();
  for (const [id, list] of bySubscription) {
    const sorted = [...list].sort((a, b) => a.attempt.at.getTime() - b.attempt.at.getTime());
    if (sorted.at(-1)!.outcome.kind === 'delivered') {
      working.push(id);
      continue;
    }
    let lastDelivered = -1;
    for (const [i, w] of sorted.entries()) if (w.outcome.kind === 'delivered') lastDelivered = i;
    runs.set(id, { failures: sorted.slice(lastDelivered + 1), afterDelivery: lastDelivered >= 0 });
  }
  return { working, runs };
}

/**
 * Holds, in one statement and in id order, the subscriptions a record writes: those with a run
 * of failures, and the working ones with a run to end (the others are not written, so not held);
 * answers the latter. Held one by one in the order the batch met them, two deliverers recording
 * the same subscriptions in opposite orders each held one the other waited for: a deadlock, one
 * batch aborted. Id order is also the order the dispatcher holds them in
 * (holdSubscriptionStates). Held before any write, each row is read by the statements after as
 * it stands (failing()).
 */
async function holdWritten(
  tx: Queryable,
  failingIds: readonly string[],
  working: readonly string[],
): Promise<string[]> {
  if (failingIds.length === 0 && working.length === 0) return [];
  const rows = await tx.query<{ id: string; working: boolean }>(
    `SELECT s.id::text AS id, s.id <> ALL($2::uuid[]) AS working FROM subscriptions s
      WHERE s.id = ANY($1::uuid[]) AND (s.id = ANY($2::uuid[]) OR s.failing_since IS NOT NULL)
      ORDER BY s.id FOR UPDATE`,
    [[...failingIds, ...working], [...failingIds]],
  );
  return rows.filter((r) => r.working).map((r) => r.id);
}

/** A run of failed attempts (oldest first) of one subscription; true when it disables it. */
async function failing(
  tx: Queryable,
  id: string,
  failures: readonly AttemptWrite[],
  afterDelivery: boolean,
  disableAfterMs: number,
): Promise<boolean> {
  const first = failures[0]!.attempt.at;
  const last = failures.at(-1)!;
  const gone = failures.some((w) => w.outcome.kind === 'gone');
  const at = last.attempt.at;
  const reason = gone
    ? `the receiver answered 410 Gone at ${at.toISOString()}`
    : `deliveries failed since {since} (${disableAfterMs} ms or more); the last at ${at.toISOString()}: ${last.attempt.error ?? 'no answer'}`;
  // The row is held already (holdWritten), so this statement reads `enabled` as it stands: read in
  // the statement that waited for another writer (a second deliverer disabling it too, its owner
  // enabling it again), it would be the value from before the wait, and one disable would be
  // reported twice, or a disable reported as none with its pending events left unskipped.
  const rows = await tx.query<{ disabled: boolean; was: boolean }>(
    `WITH before AS (SELECT enabled AS was FROM subscriptions WHERE id = $1),
     upd AS (
       UPDATE subscriptions SET failing_since = CASE WHEN $6 THEN $2 ELSE COALESCE(failing_since, $2) END,
              enabled = CASE WHEN $4 OR (CASE WHEN $6 THEN $2 ELSE COALESCE(failing_since, $2) END) <= $3
                             THEN false ELSE enabled END,
              disabled_at = CASE WHEN enabled AND ($4 OR (CASE WHEN $6 THEN $2 ELSE COALESCE(failing_since, $2) END) <= $3)
                                 THEN $7 ELSE disabled_at END,
              disabled_reason = CASE WHEN enabled AND ($4 OR (CASE WHEN $6 THEN $2 ELSE COALESCE(failing_since, $2) END) <= $3)
                                     THEN replace($5, '{since}', to_char((CASE WHEN $6 THEN $2 ELSE COALESCE(failing_since, $2) END)
                                                                          AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))
                                     ELSE disabled_reason END
        WHERE id = $1
       RETURNING NOT enabled AS disabled)
     SELECT upd.disabled, before.was FROM upd, before`,
    [id, first, new Date(at.getTime() - disableAfterMs), gone, reason, afterDelivery, at],
  );
  return rows[0]?.disabled === true && rows[0].was;
}
