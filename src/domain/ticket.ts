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

/** What a redacted callback URL reads (a string still: clients decode the field as one). */
export const REDACTED_CALLBACK_URL = '[REDACTED]';

/** Who asks for a ticket: an API key (its id and scopes), or null for a request without one. */
export interface TicketViewer {
  readonly id: string;
  readonly scopes: readonly string[];
}

/**
 * Whether a viewer may see a ticket's callback URL whole: the key that submitted the ticket and
 * admin keys. A callback URL may carry a secret (a token in its query string); the ticket ID alone
 * must not reveal it.
 */
export function maySeeCallbackUrl(submittedBy: string | null, viewer: TicketViewer | null): boolean {
  if (viewer === null) return false;
  return viewer.scopes.includes('admin') || (submittedBy !== null && submittedBy === viewer.id);
}

export interface TicketJsonOptions {
  /** `whole` (default: the callback body, the submitter) or `redacted` (anyone else). */
  readonly callbackUrl?: 'whole' | 'redacted';
}

export function ticketJson(ticket: Ticket, options: TicketJsonOptions = {}): TicketJson {
  const url = ticket.callbackUrl ?? '';
  return {
    id: ticket.id,
    tx_id: ticket.txid,
    tx_hex: Buffer.from(ticket.rawTx).toString('hex'),
    action_requested: 'transfer',
    status: ticket.status,
    callback_url: url !== '' && options.callbackUrl === 'redacted' ? REDACTED_CALLBACK_URL : url,
    createdAt: ticket.createdAt.toISOString(),
    updatedAt: ticket.updatedAt.toISOString(),
    errors: ticket.errors,
  };
}
