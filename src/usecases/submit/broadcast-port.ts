// The broadcast queue as the rest of the service sees it, and what a broadcast comes to, in a
// module of its own: the service context carries the queue (context.ts) and the queue reads the
// context (broadcast-queue.ts), so the shapes cannot live with it without an import circle.
import type { TxStatus } from '../../ledger/port.js';

export type BroadcastOutcome =
  | { readonly kind: 'accepted'; readonly status: TxStatus }
  | { readonly kind: 'rejected'; readonly reason: string; readonly arcCode: number }
  | { readonly kind: 'unavailable'; readonly reason: string };

export interface BroadcastItem {
  readonly ticketId: string;
  readonly txid: string;
  readonly rawTx: Uint8Array;
}

export interface BroadcastQueue {
  /** Queues the ticket's final transaction for the next broadcast batch; resolves with its outcome once the
   *  ledger's answer has been applied to the store and committed. Ledger trouble is an outcome ('unavailable'), not a rejection. */
  enqueue(item: BroadcastItem): Promise<BroadcastOutcome>;
  /** Flushes what is queued and stops. */
  close(): Promise<void>;
}
