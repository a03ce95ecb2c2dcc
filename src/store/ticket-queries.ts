// Reading tickets: one by id (GET /v2/ticket) and how many there are in each status.
import { isUuid } from '../crypto/random-id.js';
import { TICKET_STATUSES, type TicketStatus } from '../domain/ticket-state.js';
import type { Queryable } from './db.js';

/** A ticket as stored: the domain's Ticket (src/domain/ticket.ts) plus who submitted it. */
export interface TicketRecord {
  readonly id: string;
  readonly txid: string;
  /** The final cosigned transaction. */
  readonly rawTx: Uint8Array;
  readonly status: TicketStatus;
  readonly callbackUrl: string | null;
  /** Why it FAILED; null otherwise. */
  readonly errors: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  /** The API key that submitted it; null for one submitted without a key. */
  readonly apiKeyId: string | null;
}

interface TicketRow {
  id: string;
  txid: string;
  raw_tx: Uint8Array;
  status: TicketStatus;
  callback_url: string | null;
  errors: string | null;
  created_at: Date;
  updated_at: Date;
  api_key_id: string | null;
  [column: string]: unknown;
}

/**
 * The ticket with this id, or null. Any string may be asked for (it comes from a query
 * parameter): one that is not a UUID is simply not found.
 */
export async function ticketById(q: Queryable, id: string): Promise<TicketRecord | null> {
  if (!isUuid(id)) return null;
  const rows = await q.query<TicketRow>(
    `SELECT id, txid, raw_tx, status, callback_url, errors, created_at, updated_at, api_key_id
       FROM tickets WHERE id = $1`,
    [id],
  );
  const row = rows[0];
  if (row === undefined) return null;
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
  };
}

/** How many tickets are in each status (every status present, 0 when none). */
export async function ticketCounts(q: Queryable): Promise<Record<TicketStatus, number>> {
  const counts = Object.fromEntries(TICKET_STATUSES.map((s) => [s, 0])) as Record<TicketStatus, number>;
  const rows = await q.query<{ status: string; n: string }>(
    'SELECT status, count(*) AS n FROM tickets GROUP BY status',
  );
  for (const row of rows) {
    if ((TICKET_STATUSES as readonly string[]).includes(row.status)) {
      counts[row.status as TicketStatus] = Number(row.n);
    }
  }
  return counts;
}
