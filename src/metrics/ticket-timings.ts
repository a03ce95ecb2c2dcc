// Ticket timings: the time from submission to SUCCESS and to MINED, observed once per ticket
// when the transition commits, in whichever process commits it (the api on a broadcast's
// answer, the tracker on a ledger status).
import type { TicketTransition } from '../domain/ticket-transition.js';
import type { ServiceMetrics } from './service-metrics.js';

export function ticketTimings(
  metrics: Pick<ServiceMetrics, 'ticketTimeToSuccess' | 'ticketTimeToMined'>,
): (transition: TicketTransition) => void {
  return (t) => {
    if (!t.first) return;
    const seconds = Math.max(0, (t.at.getTime() - t.submittedAt.getTime()) / 1000);
    if (t.to === 'SUCCESS') metrics.ticketTimeToSuccess.observe(seconds);
    else if (t.to === 'MINED') metrics.ticketTimeToMined.observe(seconds);
  };
}
