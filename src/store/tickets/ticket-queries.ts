// Reading tickets: one by id (GET /v2/ticket), and the ids of those that submitted some
// transactions.
import { isUuid } from '../../crypto/random-id.js';
import type { Queryable } from '../db/db.js';
import { TICKET_COLUMNS, type TicketRecord, type TicketRow, ticketFromRow } from './ticket-row.js';

export type { TicketRecord } from './ticket-row.js';

/**
 * The ticket with this id, or null. Any string may be asked for (it comes from a query
 * parameter): one that is not a UUID is simply not found.
 */
export async function ticketById(q: Queryable, id: string): Promise<TicketRecord | null> {
  return (await ticketsById(q, [id])).get(id.toLowerCase()) ?? null;
}

/**
 * The tickets with these ids, keyed by id in lower case; an id that is no UUID or no ticket's
 * is absent. One statement for many: GET /v2/ticket reads a batch of them at once.
 */
export async function ticketsById(q: Queryable, ids: readonly string[]): Promise<Map<string, TicketRecord>> {
  const asked = [...new Set(ids.filter(isUuid))];
  if (asked.length === 0) return new Map();
  // One id (most reads) by equality: its plan, made once for any id on the hot reads'
  // connections, is a lookup in the primary key; one for `= ANY($1)` guesses the array's length
  // (on a young ledger's statistics it chose to scan the table).
  const rows =
    asked.length === 1
      ? await q.query<TicketRow>(`SELECT ${TICKET_COLUMNS} FROM tickets WHERE id = $1`, asked)
      : await q.query<TicketRow>(`SELECT ${TICKET_COLUMNS} FROM tickets WHERE id = ANY($1::uuid[])`, [asked]);
  return new Map(rows.map((row) => [row.id, ticketFromRow(row)]));
}

/** The tickets that submitted these transactions (their submitted txid): ticket id by submitted txid. */
export async function ticketIdsBySubmittedTxid(
  q: Queryable,
  submittedTxids: readonly string[],
): Promise<Map<string, string>> {
  const rows = await q.query<{ id: string; submitted_txid: string }>(
    'SELECT id, submitted_txid FROM tickets WHERE submitted_txid = ANY($1::text[])',
    [submittedTxids],
  );
  return new Map(rows.map((r) => [r.submitted_txid, r.id]));
}
