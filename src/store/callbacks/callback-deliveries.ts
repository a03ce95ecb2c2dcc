// What operators and clients see of a ticket's callbacks (GET /v2/ticket/{id}/deliveries),
// and the redelivery of its latest state (POST /v2/ticket/{id}/redeliver).
import type { Db, Queryable } from '../db/db.js';
import { appendTicketEvent } from '../tickets/ticket-writes.js';

export type EventState = 'pending' | 'delivered' | 'failed' | 'dead';

export interface DeliveryAttempt {
  readonly at: Date;
  /** HTTP status of the answer; null when none came (refused, unreachable, timed out). */
  readonly statusCode: number | null;
  readonly latencyMs: number;
  readonly error: string | null;
}

export interface EventDeliveries {
  readonly webhookId: string;
  readonly seq: number;
  /** The ticket status the event reports. */
  readonly status: string | null;
  readonly state: EventState;
  readonly attempts: number;
  /** When it is tried next; null unless pending. */
  readonly nextAttemptAt: Date | null;
  readonly deliveredAt: Date | null;
  readonly lastError: string | null;
  readonly createdAt: Date;
  readonly deliveries: readonly DeliveryAttempt[];
}

interface EventRow {
  id: string | number;
  webhook_id: string;
  seq: number;
  payload: unknown;
  state: EventState;
  attempts: number;
  next_attempt_at: Date;
  delivered_at: Date | null;
  last_error: string | null;
  created_at: Date;
  [column: string]: unknown;
}

interface AttemptRow {
  event_id: string | number;
  attempted_at: Date;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  [column: string]: unknown;
}

/** Every event of a ticket in seq order, each with its attempts oldest first. */
export async function deliveriesOfTicket(q: Queryable, ticketId: string): Promise<EventDeliveries[]> {
  const events = await q.query<EventRow>(
    `SELECT id, webhook_id, seq, payload, state, attempts, next_attempt_at, delivered_at, last_error, created_at
       FROM events WHERE ticket_id = $1 ORDER BY seq`,
    [ticketId],
  );
  const attempts = await q.query<AttemptRow>(
    `SELECT a.event_id, a.attempted_at, a.status_code, a.latency_ms, a.error
       FROM delivery_attempts a JOIN events e ON e.id = a.event_id
      WHERE e.ticket_id = $1 ORDER BY a.attempted_at, a.id`,
    [ticketId],
  );
  const byEvent = new Map<string, DeliveryAttempt[]>();
  for (const row of attempts) {
    const list = byEvent.get(String(row.event_id)) ?? [];
    list.push({
      at: row.attempted_at,
      statusCode: row.status_code,
      latencyMs: row.latency_ms,
      error: row.error,
    });
    byEvent.set(String(row.event_id), list);
  }
  return events.map((row) => ({
    webhookId: row.webhook_id,
    seq: row.seq,
    status: statusOf(row.payload),
    state: row.state,
    attempts: row.attempts,
    nextAttemptAt: row.state === 'pending' ? row.next_attempt_at : null,
    deliveredAt: row.delivered_at,
    lastError: row.last_error,
    createdAt: row.created_at,
    deliveries: byEvent.get(String(row.id)) ?? [],
  }));
}

function statusOf(payload: unknown): string | null {
  const status = (payload as { status?: unknown } | null)?.status;
  return typeof status === 'string' ? status : null;
}

export type Redelivery =
  | { readonly kind: 'queued'; readonly webhookId: string; readonly seq: number }
  | { readonly kind: 'no-ticket' }
  | { readonly kind: 'no-callback-url' };

/**
 * Queues the ticket's current state as a new event (a new webhook-id: the receiver has it
 * again on purpose), and lifts a stop left by a 410 Gone answer.
 */
export async function redeliverTicket(db: Db, ticketId: string, now: Date): Promise<Redelivery> {
  return db.transaction(async (tx) => {
    const rows = await tx.query<{ callback_url: string | null }>(
      'SELECT callback_url FROM tickets WHERE id = $1 FOR UPDATE',
      [ticketId],
    );
    const ticket = rows[0];
    if (ticket === undefined) return { kind: 'no-ticket' };
    if (ticket.callback_url === null) return { kind: 'no-callback-url' };
    await tx.query('UPDATE tickets SET callbacks_stopped_at = NULL WHERE id = $1', [ticketId]);
    await appendTicketEvent(tx, ticketId, now);
    const last = await tx.query<{ webhook_id: string; seq: number }>(
      'SELECT webhook_id, seq FROM events WHERE ticket_id = $1 ORDER BY seq DESC LIMIT 1',
      [ticketId],
    );
    const event = last[0];
    if (event === undefined) throw new Error(`no event written for ticket ${ticketId}`);
    return { kind: 'queued', webhookId: event.webhook_id, seq: event.seq };
  });
}
