// A ticket's callback sent again on request: its latest state queued as a new event (a new
// webhook-id, so the receiver has it again on purpose), and a stop left by a 410 Gone lifted.
import { type Redelivery, redeliverTicket } from '../../store/callbacks/callback-deliveries.js';
import type { ServiceContext } from '../context.js';

export function redeliver(ctx: Pick<ServiceContext, 'db' | 'now'>, ticketId: string): Promise<Redelivery> {
  return redeliverTicket(ctx.db, ticketId, ctx.now());
}
