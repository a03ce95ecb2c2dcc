// Callback events by state, kept (migration 042, docs/adr/0021-counts-kept-per-connection.md):
// what the tokenproxy_outbox_events gauge and the console read, from a few rows however many
// events there are.
import type { Queryable } from '../db/db.js';
import { type KeptCounts, readKeptCounts } from '../db/kept-counts.js';
import type { EventState } from './callback-deliveries.js';

export const EVENT_COUNTS: KeptCounts<EventState> = {
  table: 'event_state_counts',
  counted: 'events',
  by: 'state',
  columns: { pending: 'pending', delivered: 'delivered', failed: 'failed', dead: 'dead' },
};

/** How many callback events are in each state (every state present, 0 when none). */
export function outboxEventCounts(q: Queryable): Promise<Record<EventState, number>> {
  return readKeptCounts(q, EVENT_COUNTS);
}
