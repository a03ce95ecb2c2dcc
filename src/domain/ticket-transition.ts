// One status change of a ticket, as committed: what the transition log line and the ticket
// timing metrics are made of. `from` is null when the ticket is created.
import type { TicketStatus } from './ticket-state.js';

export interface TicketTransition {
  readonly ticketId: string;
  readonly txid: string;
  readonly from: TicketStatus | null;
  readonly to: TicketStatus;
  /** Why it FAILED; null for any other status. */
  readonly reason: string | null;
  /** When the ticket was submitted (created). */
  readonly submittedAt: Date;
  readonly at: Date;
  /** True the first time the ticket reaches `to` (not again after a reorg, say). */
  readonly first: boolean;
  /** The request that created the ticket; null when none did (a mint, an older ticket). */
  readonly requestId?: string | null;
}
