// Tickets by status, kept (migration 041, docs/adr/0021-counts-kept-per-connection.md):
// what the tokenproxy_tickets gauge, the admin status and the console read, from a few rows
// however many tickets there are.
import type { TicketStatus } from '../../domain/ticket-state.js';
import type { Queryable } from '../db/db.js';
import { type KeptCounts, readKeptCounts } from '../db/kept-counts.js';

export const TICKET_COUNTS: KeptCounts<TicketStatus> = {
  table: 'ticket_status_counts',
  counted: 'tickets',
  by: 'status',
  columns: { BROADCASTING: 'broadcasting', SUCCESS: 'success', MINED: 'mined', FAILED: 'failed' },
};

/** How many tickets are in each status (every status present, 0 when none). */
export function ticketCounts(q: Queryable): Promise<Record<TicketStatus, number>> {
  return readKeptCounts(q, TICKET_COUNTS);
}
