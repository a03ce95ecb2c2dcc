// A tickets row as read from the table, and the domain Ticket it stands for.
import type { Ticket } from '../../domain/ticket.js';
import type { TicketStatus } from '../../domain/ticket-state.js';

/** A ticket's columns but its transaction's bytes. */
export const TICKET_COLUMNS_BUT_RAW_TX =
  'id, txid, status, callback_url, errors, created_at, updated_at, api_key_id, request_id';

/**
 * A ticket's transaction bytes, `ticket` being the name the statement gives the tickets row. A
 * submission's ticket stores none: they are its change-feed record's, written in the same
 * transaction (migration 039, docs/adr/0018-one-copy-of-each-transaction.md). Tickets written
 * before, and the deploy's, keep their own copy.
 */
export const ticketRawTx = (ticket: string): string =>
  `COALESCE(${ticket}.raw_tx, (SELECT r.raw_tx FROM transactions r WHERE r.txid = ${ticket}.txid))`;

/** The columns every ticket read selects (FROM tickets, not renamed). */
export const TICKET_COLUMNS = `${TICKET_COLUMNS_BUT_RAW_TX}, ${ticketRawTx('tickets')} AS raw_tx`;

export interface TicketRow {
  id: string;
  txid: string;
  raw_tx: Uint8Array;
  status: TicketStatus;
  callback_url: string | null;
  errors: string | null;
  created_at: Date;
  updated_at: Date;
  api_key_id: string | null;
  request_id: string | null;
  [column: string]: unknown;
}

/** A ticket as stored: the domain's Ticket plus the API key that submitted it (null: none). */
export interface TicketRecord extends Ticket {
  readonly apiKeyId: string | null;
  /** The request that created it (its log records carry it); null when no request did. */
  readonly requestId: string | null;
}

export function ticketFromRow(row: TicketRow): TicketRecord {
  return {
    id: row.id,
    txid: row.txid,
    rawTx: row.raw_tx,
    status: row.status,
    callbackUrl: row.callback_url,
    errors: row.errors,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    apiKeyId: row.api_key_id,
    requestId: row.request_id ?? null,
  };
}
