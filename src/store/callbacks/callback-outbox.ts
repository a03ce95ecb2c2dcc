// The deliverer's statements on the callback outbox (table `events`, written by
// ticket-writes.ts in the transaction of each ticket status change), each one
// statement for a whole batch of events. Due events are leased with FOR UPDATE SKIP LOCKED,
// so several deliverers share the work; only the first pending event of a ticket can be
// leased (events of one ticket go in seq order: the next becomes due only once this one is
// written delivered, failed or dead), and a lease takes only as many events of one receiver
// as the deliverer has room for. A lease that runs out (a deliverer killed mid-delivery) lets
// another deliverer take the event; a deliverer restarted under the same owner (its instance's)
// gives its earlier run's leases back at once (releaseEventLeases).
import type { Queryable } from '../db/db.js';
import {
  CHOSEN_WITHIN_ROOM_SQL,
  type LeaseRequest,
  receiverOriginSql,
  roomParameters,
} from './receiver-lease.js';

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
  /** Until when this deliverer holds it (by the deliverer's clock at the lease). */
  readonly leaseUntil: Date;
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

/**
 * Gives back every pending event leased to `owner`: an earlier run of a deliverer of this name
 * was killed holding them (a live one never shares its name). Answers how many.
 */
export async function releaseEventLeases(db: Queryable, owner: string): Promise<number> {
  const rows = await db.query(
    `UPDATE events SET lease_owner = NULL, lease_until = NULL
      WHERE state = 'pending' AND lease_owner = $1 RETURNING id`,
    [owner],
  );
  return rows.length;
}

const ORIGIN_SQL = receiverOriginSql('t.callback_url');

/**
 * The candidates are found in due order through the events_due index, each ticket's origin
 * and first pending seq through primary key and events_pending_by_ticket lookups (the
 * OFFSET 0 and the scalar subquery keep the planner from hashing the whole backlog instead):
 * a lease costs what it takes, not what is due.
 *
 * Leases up to `limit` due events in one statement, oldest due first: at most one per ticket
 * (the first pending), at most the room of each receiver, none of the busy receivers.
 */
export async function leaseDueEvents(db: Queryable, req: LeaseRequest): Promise<LeasedEvent[]> {
  if (req.limit <= 0) return [];
  const leaseUntil = new Date(req.now.getTime() + req.leaseMs);
  const rows = await db.query<LeasedRow>(
    `WITH candidates AS (
       SELECT d.id, d.next_attempt_at, t.origin
         FROM events d
        CROSS JOIN LATERAL (SELECT ${ORIGIN_SQL} AS origin FROM tickets t WHERE t.id = d.ticket_id OFFSET 0) t
        WHERE d.state = 'pending' AND d.next_attempt_at <= $2
          AND (d.lease_until IS NULL OR d.lease_until < $2)
          AND d.seq = (SELECT min(p.seq) FROM events p WHERE p.ticket_id = d.ticket_id AND p.state = 'pending')
          AND t.origin <> ALL($5::text[])
        ORDER BY d.next_attempt_at
        LIMIT $6
        FOR UPDATE OF d SKIP LOCKED
     ), ${CHOSEN_WITHIN_ROOM_SQL}
     UPDATE events e SET lease_owner = $1, lease_until = $3
       FROM chosen c, tickets t LEFT JOIN api_keys k ON k.id = t.api_key_id
      WHERE e.id = c.id AND t.id = e.ticket_id
      RETURNING e.id, e.ticket_id, e.webhook_id, e.seq, e.payload, e.attempts, e.first_attempt_at,
                t.callback_url, t.callback_secret_enc, k.webhook_secret_enc, t.callbacks_stopped_at,
                ${ORIGIN_SQL} AS origin`,
    [req.owner, req.now, leaseUntil, ...roomParameters(req)],
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
      leaseUntil,
    }))
    .sort((a, b) => compareIds(a.id, b.id));
}

/** Order of two int8 ids written in decimal (no sign, no leading zeros): shorter is smaller. */
function compareIds(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
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

/** What a deliverer writes about one leased event. */
export type OutboxWrite =
  /** An attempt was made: its row, the event's new state, for a 410 the ticket's stop mark. */
  | {
      readonly kind: 'attempt';
      readonly event: { readonly id: string; readonly ticketId: string };
      /** The deliverer that made it. */
      readonly owner: string;
      readonly attempt: AttemptRecord;
      readonly outcome: AttemptOutcome;
    }
  /** Ended without an attempt (state `dead` or `failed`, with why). */
  | {
      readonly kind: 'unsent';
      readonly event: { readonly id: string; readonly ticketId: string };
      readonly owner: string;
      readonly state: 'dead' | 'failed';
      readonly why: string;
    }
  /** Given back unattempted (the deliverer is stopping, or its lease is too short to send). */
  | {
      readonly kind: 'release';
      readonly event: { readonly id: string; readonly ticketId: string };
      readonly owner: string;
    };

function stateOf(outcome: AttemptOutcome): 'delivered' | 'pending' | 'dead' | 'failed' {
  if (outcome.kind === 'retry') return 'pending';
  return outcome.kind === 'gone' ? 'dead' : outcome.kind;
}

/** One row of a write's input, every kind in one shape (one hidden class, no spreads). */
function inputRow(write: OutboxWrite) {
  const attempt = write.kind === 'attempt' ? write.attempt : null;
  const outcome = write.kind === 'attempt' ? write.outcome : null;
  return {
    kind: write.kind,
    event_id: write.event.id,
    ticket_id: write.event.ticketId,
    owner: write.owner,
    at: attempt === null ? null : attempt.at.toISOString(),
    status_code: attempt === null ? null : attempt.statusCode,
    latency_ms: attempt === null ? null : Math.max(0, Math.round(attempt.latencyMs)),
    error: attempt !== null ? attempt.error : write.kind === 'unsent' ? write.why : null,
    state: outcome !== null ? stateOf(outcome) : write.kind === 'unsent' ? write.state : null,
    next_at: outcome?.kind === 'retry' ? outcome.at.toISOString() : null,
  };
}

/**
 * Writes many events' attempts, settlements and releases in one statement (one implicit
 * transaction): each attempt's row, each event's new state, and for a 410 the ticket's stop
 * mark. A delivery is recorded whoever holds the lease now (it did arrive); anything else
 * only while its deliverer still holds the lease.
 */
export async function writeOutbox(db: Queryable, writes: readonly OutboxWrite[]): Promise<void> {
  if (writes.length === 0) return;
  await db.query(
    `WITH input AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS i(kind text, event_id bigint, ticket_id uuid, owner text,
                                                        at timestamptz, status_code int, latency_ms int, error text,
                                                        state text, next_at timestamptz)
     ), attempt AS (
       INSERT INTO delivery_attempts (event_id, attempted_at, status_code, latency_ms, error)
       SELECT event_id, at, status_code, latency_ms, error FROM input WHERE kind = 'attempt' ORDER BY at, event_id
     ), stop AS (
       UPDATE tickets t SET callbacks_stopped_at = i.at FROM input i
        WHERE i.kind = 'attempt' AND i.state = 'dead' AND t.id = i.ticket_id AND t.callbacks_stopped_at IS NULL
          AND t.id = ANY($3::uuid[])
     )
     UPDATE events e
        SET attempts = e.attempts + CASE WHEN i.kind = 'attempt' THEN 1 ELSE 0 END,
            first_attempt_at = CASE WHEN i.kind = 'attempt' THEN COALESCE(e.first_attempt_at, i.at)
                                    ELSE e.first_attempt_at END,
            last_error = CASE WHEN i.kind = 'release' THEN e.last_error ELSE i.error END,
            lease_owner = NULL, lease_until = NULL,
            state = COALESCE(i.state, e.state),
            next_attempt_at = COALESCE(i.next_at, e.next_attempt_at),
            delivered_at = CASE WHEN i.state = 'delivered' THEN i.at ELSE e.delivered_at END
       FROM input i
      WHERE e.id = i.event_id AND e.id = ANY($2::bigint[]) AND e.state = 'pending'
        AND ((i.kind = 'attempt' AND i.state = 'delivered') OR e.lease_owner = i.owner)`,
    // The ids again as arrays: the planner then finds the rows through the primary keys
    // (it cannot see into the JSON and would otherwise scan the tables).
    [
      JSON.stringify(writes.map(inputRow)),
      writes.map((w) => w.event.id),
      [
        ...new Set(
          writes
            .filter((w) => w.kind === 'attempt' && w.outcome.kind === 'gone')
            .map((w) => w.event.ticketId),
        ),
      ],
    ],
  );
}

/**
 * Refreshes the planner's statistics of the outbox's tables (events, their delivery attempts
 * and tickets): PGlite runs no autovacuum, and without them a lease sorts every due event.
 */
export async function analyzeOutbox(db: Queryable): Promise<void> {
  await db.query('ANALYZE events, delivery_attempts, tickets');
}
