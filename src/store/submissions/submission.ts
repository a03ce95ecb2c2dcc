// A cosigned submission as the store writes it, in a module of its own: the batch's write
// (submission-writes.ts) and its claims (submission-claims.ts) both read it, and the write calls
// the claims, so the shape cannot live with either without an import circle.
import type { NewTokenOutput } from '../feed/feed-records.js';

export interface Outpoint {
  readonly txid: string;
  readonly vout: number;
}

export interface Submission {
  readonly ticketId: string;
  readonly txid: string;
  readonly submittedTxid: string;
  readonly rawTx: Uint8Array;
  readonly inputs: readonly Outpoint[];
  readonly funding: Outpoint;
  /** Who holds the funding output's lease: the api process that cosigned with it. */
  readonly leaseOwner: string;
  readonly outputs: readonly NewTokenOutput[];
  readonly senders: readonly string[];
  readonly receivers: readonly string[];
  readonly callbackUrl: string | null;
  readonly callbackSecretEnc: Uint8Array | null;
  readonly apiKeyId: string | null;
  /** The request that submitted it (X-Request-Id or the service's): its ticket's log records carry it. */
  readonly requestId?: string | null;
  readonly now: Date;
  /** When the tracker first looks at the ticket, should its broadcast not settle it first. */
  readonly firstCheckAt: Date;
}
