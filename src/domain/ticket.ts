// The Ticket resource (spec 2.5) and the event payload (spec 6): one shape for both.
import type { TicketStatus } from './ticket-state.js';

export interface Ticket {
  readonly id: string;
  readonly txid: string;
  readonly rawTx: Uint8Array;
  readonly status: TicketStatus;
  readonly callbackUrl: string | null;
  readonly errors: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export interface TicketJson {
  readonly id: string;
  readonly tx_id: string;
  readonly tx_hex: string;
  readonly action_requested: 'transfer';
  readonly status: TicketStatus;
  readonly callback_url: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly errors: string | null;
}

export function ticketJson(ticket: Ticket): TicketJson {
  return {
    id: ticket.id,
    tx_id: ticket.txid,
    tx_hex: Buffer.from(ticket.rawTx).toString('hex'),
    action_requested: 'transfer',
    status: ticket.status,
    callback_url: ticket.callbackUrl ?? '',
    createdAt: ticket.createdAt.toISOString(),
    updatedAt: ticket.updatedAt.toISOString(),
    errors: ticket.errors,
  };
}
