// The deliverer's queries on the callback outbox (table `events`, written by
// store/ticket-writes.ts in the transaction of each ticket status change). Due events are
// leased with FOR UPDATE SKIP LOCKED, so several deliverers share the work; only the first
// pending event of a ticket can be leased (events of one ticket go in seq order), and a
// deliverer takes only a few events of one receiver at a time; a lease that runs out (a deliverer killed mid-delivery) lets another deliverer take the event.
import type { Queryable } from '../store/db.js';

export interface LeasedEvent {
  /** events.id (an int8, as a decimal string). */
  readonly id: string;
  readonly ticketId: string;
  readonly webhookId: string;
  readonly seq: number;
  readonly payload: unknown;
  /** Attempts made before this one. */
  readonly attempts: number;
  readonly firstAttemptAt: Date | null;
  readonly callbackUrl: string | null;
  /** scheme://host[:port] of the callback URL ('' when there is none): one receiver. */
  readonly origin: string;
  /** The ticket's own callback_secret, sealed; it wins over the key's. */
  readonly callbackSecretEnc: Uint8Array | null;
  /** The submitting API key's whsec_ secret, sealed. */
  readonly keySecretEnc: Uint8Array | null;
  /** Set when the receiver answered 410 Gone to an earlier event. */
  readonly callbacksStoppedAt: Date | null;
}

interface LeasedRow {
  id: string | number;
  ticket_id: string;
  webhook_id: string;
  seq: number;
  payload: unknown;
  attempts: number;
  first_attempt_at: Date | null;
  callback_url: string | null;
  callback_secret_enc: Uint8Array | null;
  webhook_secret_enc: Uint8Array | null;
  callbacks_stopped_at: Date | null;
  origin: string;
  [column: string]: unknown;
}

export interface LeaseRequest {
  /** Who holds the lease (one name per deliverer). */
  readonly owner: string;
  readonly now: Date;
  readonly leaseMs: number;
  readonly limit: number;
  /** Receivers (origins) to leave alone: this deliverer has enough of theirs in hand. */
  readonly busyOrigins?: readonly string[];
  /** Most events of one receiver in one lease (default: no limit). */
  readonly perOrigin?: number;
}

/** scheme://host[:port] of a stored callback URL (stored normalised, so always with a path). */
const ORIGIN_SQL = `COALESCE(substring(t.callback_url from '^[a-z][a-z0-9+.-]*://[^/?#]+'), '')`;

/**
 * Leases up to `limit` due events, oldest due first: at most one per ticket (the first
 * pending), at most `perOrigin` per receiver, none of the busy receivers.
 */
export async function leaseDueEvents(db: Queryable, req: LeaseRequest): Promise<LeasedEvent[]> {
  if (req.limit <= 0) return [];
  const perOrigin = req.perOrigin ?? req.limit;
  const rows = await db.query<LeasedRow>(
    `WITH candidates AS (
       SELECT d.id, d.next_attempt_at, ${ORIGIN_SQL} AS origin
         FROM events d JOIN tickets t ON t.id = d.ticket_id
        WHERE d.state = 'pending' AND d.next_attempt_at <= $2
          AND (d.lease_until IS NULL OR d.lease_until < $2)
          AND NOT EXISTS (SELECT 1 FROM events p
                           WHERE p.ticket_id = d.ticket_id AND p.state = 'pending' AND p.seq < d.seq)
          AND ${ORIGIN_SQL} <> ALL($5::text[])
        ORDER BY d.next_attempt_at
        LIMIT $6
        FOR UPDATE OF d SKIP LOCKED
     ), chosen AS (
       SELECT id FROM (SELECT id, next_attempt_at,
                              row_number() OVER (PARTITION BY origin ORDER BY next_attempt_at, id) AS rank
                         FROM candidates) ranked
        WHERE rank <= $7
        ORDER BY next_attempt_at, id
        LIMIT $4
     )
     UPDATE events e SET lease_owner = $1, lease_until = $3
       FROM chosen c, tickets t LEFT JOIN api_keys k ON k.id = t.api_key_id
      WHERE e.id = c.id AND t.id = e.ticket_id
      RETURNING e.id, e.ticket_id, e.webhook_id, e.seq, e.payload, e.attempts, e.first_attempt_at,
                t.callback_url, t.callback_secret_enc, k.webhook_secret_enc, t.callbacks_stopped_at,
                ${ORIGIN_SQL} AS origin`,
    [
      req.owner,
      req.now,
      new Date(req.now.getTime() + req.leaseMs),
      req.limit,
      [...(req.busyOrigins ?? [])],
      req.limit * 4,
      perOrigin,
    ],
  );
  return rows
    .map((row) => ({
      id: String(row.id),
      ticketId: row.ticket_id,
      webhookId: row.webhook_id,
      seq: row.seq,
      payload: row.payload,
      attempts: row.attempts,
      firstAttemptAt: row.first_attempt_at,
      callbackUrl: row.callback_url,
      origin: row.origin,
      callbackSecretEnc: row.callback_secret_enc,
      keySecretEnc: row.webhook_secret_enc,
      callbacksStoppedAt: row.callbacks_stopped_at,
    }))
    .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
}

export interface AttemptRecord {
  readonly at: Date;
  /** HTTP status of the answer; null when none came. */
  readonly statusCode: number | null;
  readonly latencyMs: number;
  readonly error: string | null;
}

/** What becomes of an attempted event. */
export type AttemptOutcome =
  | { readonly kind: 'delivered' }
  | { readonly kind: 'retry'; readonly at: Date }
  /** Retried for 24 h without success. */
  | { readonly kind: 'failed' }
  /** The receiver answered 410 Gone: this event and the ticket's later ones are not sent. */
  | { readonly kind: 'gone' };

export interface RecordedAttempt {
  readonly event: { readonly id: string; readonly ticketId: string };
  /** The deliverer that made it. */
  readonly owner: string;
  readonly attempt: AttemptRecord;
  readonly outcome: AttemptOutcome;
}

/**
 * Records attempts and their outcomes in one statement (one implicit transaction): each
 * attempt's row, its event's new state, and for a 410 the ticket's stop mark. A delivery is
 * recorded whoever holds the lease now (it did arrive); any other outcome only while its
 * deliverer still holds the lease.
 */
export async function recordAttempts(db: Queryable, records: readonly RecordedAttempt[]): Promise<void> {
  if (records.length === 0) return;
  const rows = records.map(({ event, owner, attempt, outcome }) => ({
    event_id: event.id,
    ticket_id: event.ticketId,
    owner,
    at: attempt.at.toISOString(),
    status_code: attempt.statusCode,
    latency_ms: Math.max(0, Math.round(attempt.latencyMs)),
    error: attempt.error,
    state:
      outcome.kind === 'delivered'
        ? 'delivered'
        : outcome.kind === 'retry'
          ? 'pending'
          : outcome.kind === 'gone'
            ? 'dead'
            : 'failed',
    next_at: outcome.kind === 'retry' ? outcome.at.toISOString() : null,
  }));
  await db.query(
    `WITH input AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS i(event_id bigint, ticket_id uuid, owner text, at timestamptz,
                                                        status_code int, latency_ms int, error text, state text,
                                                        next_at timestamptz)
     ), attempt AS (
       INSERT INTO delivery_attempts (event_id, attempted_at, status_code, latency_ms, error)
       SELECT event_id, at, status_code, latency_ms, error FROM input
     ), stop AS (
       UPDATE tickets t SET callbacks_stopped_at = i.at FROM input i
        WHERE i.state = 'dead' AND t.id = i.ticket_id AND t.callbacks_stopped_at IS NULL
     )
     UPDATE events e SET attempts = e.attempts + 1, first_attempt_at = COALESCE(e.first_attempt_at, i.at),
                         last_error = i.error, lease_owner = NULL, lease_until = NULL, state = i.state,
                         next_attempt_at = COALESCE(i.next_at, e.next_attempt_at),
                         delivered_at = CASE WHEN i.state = 'delivered' THEN i.at ELSE e.delivered_at END
       FROM input i
      WHERE e.id = i.event_id AND e.state = 'pending' AND (i.state = 'delivered' OR e.lease_owner = i.owner)`,
    [JSON.stringify(rows)],
  );
}

/** Ends an event without an attempt (state `dead` or `failed`, with why), if this owner holds it. */
export async function settleUnsent(
  db: Queryable,
  eventId: string,
  owner: string,
  state: 'dead' | 'failed',
  why: string,
): Promise<void> {
  await db.query(
    `UPDATE events SET state = $3, last_error = $4, lease_owner = NULL, lease_until = NULL
      WHERE id = $1 AND state = 'pending' AND lease_owner = $2`,
    [eventId, owner, state, why],
  );
}

/** Gives a leased event back at once, unattempted (the deliverer is stopping). */
export async function releaseEvent(db: Queryable, eventId: string, owner: string): Promise<void> {
  await db.query(
    `UPDATE events SET lease_owner = NULL, lease_until = NULL WHERE id = $1 AND state = 'pending' AND lease_owner = $2`,
    [eventId, owner],
  );
}
