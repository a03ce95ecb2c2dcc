// After a ticket's status change has committed: one info log line per transition (ticketId,
// txid, from, to, the reason on FAILED, and the requestId of the request that created it), and the context's observer (the timing metrics).
// Called only after the commit, so a rolled-back change is never reported.
import type { TicketTransition } from '../domain/ticket-transition.js';
import type { ServiceContext } from './context.js';

export const TRANSITION_MESSAGE = 'ticket status changed';

export function reportTransitions(
  ctx: Pick<ServiceContext, 'log' | 'onTransition'>,
  transitions: readonly TicketTransition[],
): void {
  for (const t of transitions) {
    ctx.log.info(
      {
        ticketId: t.ticketId,
        txid: t.txid,
        from: t.from,
        to: t.to,
        ...(t.to === 'FAILED' && { reason: t.reason }),
        // The request that created it: the same field as that request's own records.
        ...(t.requestId != null && { requestId: t.requestId }),
      },
      TRANSITION_MESSAGE,
    );
    try {
      ctx.onTransition?.(t);
    } catch (err) {
      ctx.log.warn({ err, ticketId: t.ticketId }, 'observing a ticket transition failed');
    }
  }
}
