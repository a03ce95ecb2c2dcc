// Ticket rows: the ticket of a transaction the service broadcast itself, reading one for
// update, moving its status one legal step at a time, and the callback outbox event that every
// status change of a ticket with a callback URL writes in the same database transaction.
// (Submitted transfers' tickets are written by submission-writes.ts.)
import { type Ticket, type TicketJson, ticketJson } from '../../domain/ticket.js';
import { pathTo, TICKET_STATUS_RANK, type TicketStatus } from '../../domain/ticket-state.js';
import type { TicketTransition } from '../../domain/ticket-transition.js';
import type { Queryable } from '../db/db.js';
import {
  TICKET_COLUMNS,
  TICKET_COLUMNS_BUT_RAW_TX,
  type TicketRecord,
  type TicketRow,
  ticketFromRow,
  ticketRawTx,
} from './ticket-row.js';

/**
 * A ticket that follows a transaction the service broadcast itself (the token deploy) to
 * MINED: BROADCASTING, no callback, looked at from `now` on.
 */
export async function insertOwnTicket(
  tx: Queryable,
  ticket: { readonly id: string; readonly txid: string; readonly rawTx: Uint8Array; readonly now: Date },
): Promise<void> {
  await tx.query(
    `INSERT INTO tickets (id, txid, submitted_txid, raw_tx, status, status_rank, next_check_at, created_at, updated_at)
     VALUES ($1, $2, $2, $3, 'BROADCASTING', 10, $4, $4, $4)`,
    [ticket.id, ticket.txid, ticket.rawTx, ticket.now],
  );
}

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
  ticket: Ticket & { readonly requestId?: string | null },
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
      requestId: ticket.requestId ?? null,
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

/**
 * A ticket as locked by a batch of verdicts: its row, and whether it ever reached MINED. The
 * transaction's bytes are read only for a ticket with a callback URL, whose events carry them: a
 * batch of verdicts needs nothing else of them, and they are most of a row's bytes.
 */
export interface LockedTicket {
  readonly ticket: Omit<TicketRecord, 'rawTx'>;
  /** The ticket's transaction when it has a callback URL; null when it has none. */
  readonly rawTx: Uint8Array | null;
  readonly firstMinedAt: Date | null;
}

/** Locks the tickets of `txids` in id order (the one order every batch locks them in). */
export async function lockTicketsByTxid(tx: Queryable, txids: readonly string[]): Promise<LockedTicket[]> {
  if (txids.length === 0) return [];
  const rows = await tx.query<TicketRow & { raw_tx: Uint8Array | null; first_mined_at: Date | null }>(
    `SELECT ${TICKET_COLUMNS_BUT_RAW_TX}, CASE WHEN callback_url IS NULL THEN NULL ELSE ${ticketRawTx('tickets')} END AS raw_tx,
            first_mined_at
       FROM tickets WHERE txid = ANY($1::text[]) ORDER BY id FOR UPDATE`,
    [txids],
  );
  return rows.map((row) => {
    const { rawTx: _, ...ticket } = ticketFromRow(row);
    return { ticket, rawTx: row.raw_tx, firstMinedAt: row.first_mined_at };
  });
}

export type LookAgain = 'poll' | 'backstop' | 'block' | 'never';

/** When a batch's tickets are looked at again (TicketWrite.lookAgain). */
export interface LookTimes {
  readonly poll: Date;
  /** A MINED ticket whose block the tracker watches (docs/adr/0006). */
  readonly backstop: Date;
  /** A SUCCESS ticket waiting for a block, should none come (docs/adr/0008). */
  readonly mempoolBackstop: Date;
}

const LOOK_CODE: Record<LookAgain, number> = { never: 0, poll: 1, backstop: 2, block: 3 };

export interface TicketWrite {
  readonly id: string;
  readonly status: TicketStatus;
  /** The status changed: updated_at and errors are written (errors only on FAILED). */
  readonly moved: boolean;
  readonly errors: string | null;
  /**
   * When the tracker looks again: at the next poll, only at the backstop (a MINED ticket whose
   * block the tracker watches, docs/adr/0006), when a block comes or at the mempool's backstop
   * (a SUCCESS ticket, docs/adr/0008), or never (next_check_at NULL).
   */
  readonly lookAgain: LookAgain;
  /** Reached MINED for the first time: first_mined_at is set. */
  readonly firstMined: boolean;
}

/**
 * Writes many tickets' statuses and schedules in one statement (lease released, failures reset).
 * A ticket that leaves BROADCASTING for the network makes its reservations spent by its status
 * alone: its inputs and funding output are not written (docs/adr/0019-reservations-end-with-their-ticket.md).
 */
export async function writeTickets(
  tx: Queryable,
  writes: readonly TicketWrite[],
  now: Date,
  looks: LookTimes,
): Promise<void> {
  if (writes.length === 0) return;
  await tx.query(
    `UPDATE tickets k
        SET status = u.status, status_rank = u.rank,
            errors = CASE WHEN u.moved = 1 THEN NULLIF(u.errors, '') ELSE k.errors END,
            updated_at = CASE WHEN u.moved = 1 THEN $1 ELSE k.updated_at END,
            next_check_at = CASE u.look WHEN 1 THEN $2::timestamptz WHEN 2 THEN $10::timestamptz
                                        WHEN 3 THEN $11::timestamptz ELSE NULL END,
            lease_until = NULL, failures = 0,
            first_mined_at = CASE WHEN u.first_mined = 1 THEN $1 ELSE k.first_mined_at END
       FROM unnest($3::uuid[], $4::text[], $5::int[], $6::int[], $7::text[], $8::int[], $9::int[])
            AS u(id, status, rank, moved, errors, look, first_mined)
      WHERE k.id = u.id`,
    [
      now,
      looks.poll,
      writes.map((w) => w.id),
      writes.map((w) => w.status),
      writes.map((w) => TICKET_STATUS_RANK[w.status]),
      writes.map((w) => (w.moved ? 1 : 0)),
      writes.map((w) => w.errors ?? ''),
      writes.map((w) => LOOK_CODE[w.lookAgain]),
      writes.map((w) => (w.firstMined ? 1 : 0)),
      looks.backstop,
      looks.mempoolBackstop,
    ],
  );
}

/**
 * Callback outbox events, many tickets' in one statement: each payload gets the ticket's next
 * seq (events of one ticket in the order given). Only for tickets with a callback URL.
 */
export async function appendTicketEvents(
  tx: Queryable,
  events: readonly { readonly ticketId: string; readonly payload: TicketJson }[],
  now: Date,
): Promise<void> {
  if (events.length === 0) return;
  const nth = new Map<string, number>();
  const ordinals = events.map((e) => {
    const n = (nth.get(e.ticketId) ?? 0) + 1;
    nth.set(e.ticketId, n);
    return n;
  });
  await tx.query(
    `INSERT INTO events (ticket_id, webhook_id, seq, payload, next_attempt_at, created_at)
     SELECT u.ticket_id, u.prefix || (m.base + u.n)::text, m.base + u.n, u.payload::jsonb, $1, $1
       FROM unnest($2::uuid[], $3::text[], $4::int[], $5::text[]) AS u(ticket_id, prefix, n, payload)
       CROSS JOIN LATERAL (SELECT COALESCE(MAX(seq), 0) AS base FROM events e WHERE e.ticket_id = u.ticket_id) m`,
    [
      now,
      events.map((e) => e.ticketId),
      events.map((e) => `msg_${e.ticketId.replaceAll('-', '')}_`),
      ordinals,
      events.map((e) => JSON.stringify(e.payload)),
    ],
  );
}
