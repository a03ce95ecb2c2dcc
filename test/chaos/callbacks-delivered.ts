// The callback half of the chaos invariants: every status change of a ticket (its outbox events,
// written in the transaction of each change) reached the receiver at least once, none missed,
// in the ticket's order, and the last one each ticket's receiver saw is MINED.
import assert from 'node:assert/strict';
import type { Db } from '../../src/store/db/db.js';
import type { WebhookReceiver } from '../callbacks/webhook-receiver.js';

export interface CallbackTally {
  /** Outbox events of the tickets (status changes with a callback). */
  readonly events: number;
  /** Requests the receiver got for them (redeliveries included). */
  readonly requests: number;
  /** Events the receiver got more than once (at-least-once delivery). */
  readonly repeated: number;
}

/** Asserts, per ticket: the receiver holds each of its events (by webhook-id, same status), ending MINED. */
export async function expectEveryEventDelivered(
  db: Db,
  receiver: WebhookReceiver,
  tickets: readonly string[],
): Promise<CallbackTally> {
  const rows = await db.query<{
    ticket_id: string;
    webhook_id: string;
    seq: number;
    status: string;
    state: string;
  }>(
    `SELECT ticket_id::text AS ticket_id, webhook_id, seq, payload->>'status' AS status, state
       FROM events WHERE ticket_id = ANY($1::uuid[]) ORDER BY ticket_id, seq`,
    [tickets],
  );
  const got = new Map<string, string[]>();
  for (const r of receiver.received) {
    const id = String(r.headers['webhook-id']);
    got.set(id, [...(got.get(id) ?? []), String(r.json.status)]);
  }
  const byTicket = new Map<string, typeof rows>();
  for (const row of rows) byTicket.set(row.ticket_id, [...(byTicket.get(row.ticket_id) ?? []), row]);
  for (const id of tickets) {
    const events = byTicket.get(id) ?? [];
    assert.ok(events.length > 0, `ticket ${id}: no callback event in the outbox`);
    assert.deepEqual(
      events.map((e) => e.seq),
      events.map((_, i) => i + 1),
      `ticket ${id}: its events are numbered 1..n`,
    );
    const seen = events.map((e) => got.get(e.webhook_id)?.[0] ?? 'missed');
    assert.deepEqual(
      seen,
      events.map((e) => e.status),
      `ticket ${id}: the receiver's events (by seq) against the outbox's`,
    );
    assert.equal(seen.at(-1), 'MINED', `ticket ${id}: the last callback says MINED`);
    for (const e of events) assert.equal(e.state, 'delivered', `event ${e.webhook_id} is ${e.state}`);
  }
  const ours = new Set(rows.map((r) => r.webhook_id));
  let requests = 0;
  let repeated = 0;
  for (const [id, statuses] of got)
    if (ours.has(id)) {
      requests += statuses.length;
      if (statuses.length > 1) repeated++;
    }
  return { events: rows.length, requests, repeated };
}
