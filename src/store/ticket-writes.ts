// Ticket rows: reading one for update, moving its status one legal step at a time, and the
// callback outbox event that every status change of a ticket with a callback URL writes in
// the same database transaction.
import { type Ticket, ticketJson } from '../domain/ticket.js';
import { pathTo, TICKET_STATUS_RANK, type TicketStatus } from '../domain/ticket-state.js';
import type { TicketTransition } from '../domain/ticket-transition.js';
import type { Queryable } from './db.js';
import { TICKET_COLUMNS, type TicketRow, ticketFromRow } from './ticket-row.js';

export async function ticketForUpdate(tx: Queryable, id: string): Promise<Ticket | null> {
  const rows = await tx.query<TicketRow>(`SELECT ${TICKET_COLUMNS} FROM tickets WHERE id = $1 FOR UPDATE`, [
    id,
  ]);
  return rows[0] === undefined ? null : ticketFromRow(rows[0]);
}

export async function ticketByTxidForUpdate(tx: Queryable, txid: string): Promise<Ticket | null> {
  const rows = await tx.query<TicketRow>(`SELECT ${TICKET_COLUMNS} FROM tickets WHERE txid = $1 FOR UPDATE`, [
    txid,
  ]);
  return rows[0] === undefined ? null : ticketFromRow(rows[0]);
}

export interface StatusChange {
  readonly errors?: string | null;
  readonly now: Date;
  /** When the tracker should look at the ticket again; null: never (it has ended). */
  readonly nextCheckAt: Date | null;
}

/**
 * Moves a ticket to `to` through every intermediate status (each one an event), and returns
 * the statuses it passed through. Same status: only the schedule is updated. Each step is
 * added to `journal`, for the caller to report once the transaction has committed.
 */
export async function moveTicket(
  tx: Queryable,
  ticket: Ticket,
  to: TicketStatus,
  change: StatusChange,
  journal?: TicketTransition[],
): Promise<TicketStatus[]> {
  const steps = pathTo(ticket.status, to);
  let from = ticket.status;
  for (const status of steps) {
    await tx.query(
      `UPDATE tickets SET status = $2, status_rank = $3, errors = $4, updated_at = $5, next_check_at = $6, lease_until = NULL,
                          failures = 0
        WHERE id = $1`,
      [
        ticket.id,
        status,
        TICKET_STATUS_RANK[status],
        status === 'FAILED' ? (change.errors ?? 'failed') : null,
        change.now,
        change.nextCheckAt,
      ],
    );
    // The ticket was read in this transaction: without a callback URL there is no event to write.
    if (ticket.callbackUrl !== null) await appendTicketEvent(tx, ticket.id, change.now);
    const first = status === 'MINED' ? await firstMined(tx, ticket.id, change.now) : from === 'BROADCASTING';
    journal?.push({
      ticketId: ticket.id,
      txid: ticket.txid,
      from,
      to: status,
      reason: status === 'FAILED' ? (change.errors ?? 'failed') : null,
      submittedAt: ticket.createdAt,
      at: change.now,
      first,
    });
    from = status;
  }
  if (steps.length === 0) {
    await tx.query('UPDATE tickets SET next_check_at = $2, lease_until = NULL, failures = 0 WHERE id = $1', [
      ticket.id,
      change.nextCheckAt,
    ]);
  }
  return steps;
}

/** Records when the ticket first reached MINED; true when this is that first time. */
async function firstMined(tx: Queryable, ticketId: string, now: Date): Promise<boolean> {
  const rows = await tx.query(
    'UPDATE tickets SET first_mined_at = $2 WHERE id = $1 AND first_mined_at IS NULL RETURNING id',
    [ticketId, now],
  );
  return rows.length > 0;
}

/** Writes the ticket's current state to the outbox, when it has a callback URL. */
export async function appendTicketEvent(tx: Queryable, ticketId: string, now: Date): Promise<void> {
  const rows = await tx.query<TicketRow>(`SELECT ${TICKET_COLUMNS} FROM tickets WHERE id = $1`, [ticketId]);
  const row = rows[0];
  if (row === undefined || row.callback_url === null) return;
  const seqRows = await tx.query<{ seq: number }>(
    'SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM events WHERE ticket_id = $1',
    [ticketId],
  );
  const seq = seqRows[0]!.seq;
  await tx.query(
    `INSERT INTO events (ticket_id, webhook_id, seq, payload, next_attempt_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $5)`,
    [
      ticketId,
      `msg_${ticketId.replaceAll('-', '')}_${seq}`,
      seq,
      JSON.stringify(ticketJson(ticketFromRow(row))),
      now,
    ],
  );
}
