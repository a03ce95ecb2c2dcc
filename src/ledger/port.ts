// The ledger port: what the service needs of the network. Adapters: devnet (embedded) and arc.
// Failures at this port are values (BroadcastResult), not exceptions; an adapter throws only
// LedgerUnavailableError when the ledger cannot be reached at all.

export type TxStatus =
  | { readonly kind: 'unknown' }
  | { readonly kind: 'mempool' }
  | {
      readonly kind: 'mined';
      readonly blockHash: string;
      readonly height: number;
      /** Position of the transaction in its block (0 = coinbase). */
      readonly index: number;
      /** Block time, Unix seconds. */
      readonly blockTime: number;
      /** BUMP (BRC-74) merkle path, hex. */
      readonly merklePath: string;
    }
  | { readonly kind: 'rejected'; readonly reason: string; readonly arcCode?: number }
  | { readonly kind: 'double-spend'; readonly competingTxids: readonly string[] };

export type BroadcastResult =
  | { readonly ok: true; readonly txid: string; readonly status: TxStatus }
  | {
      readonly ok: false;
      readonly txid: string;
      /** ARC error number (460-475) when the ledger refused the transaction. */
      readonly arcCode: number;
      readonly reason: string;
      /** True when the refusal may pass on a later try (e.g. missing parent not yet seen). */
      readonly retryable: boolean;
    };

export interface ChainTip {
  readonly height: number;
  readonly hash: string;
  /** Unix seconds. */
  readonly time: number;
}

export interface FeePolicy {
  /** Mining fee rate: satoshis per 1000 bytes. */
  readonly satoshisPerKb: bigint;
}

export type StatusListener = (txid: string, status: TxStatus) => void;

export interface Ledger {
  /** Broadcast raw transaction bytes. Idempotent for the same txid: answers its current status. */
  broadcast(rawTx: Uint8Array): Promise<BroadcastResult>;
  /**
   * Broadcasts several transactions at once (ARC's POST /v1/txs): one result per input, in the
   * same order, each as `broadcast` would answer it. Throws LedgerUnavailableError only when the
   * ledger cannot be reached at all; one transaction the ledger could not take is a retryable
   * refusal of that item alone.
   */
  broadcastMany(rawTxs: readonly Uint8Array[]): Promise<BroadcastResult[]>;
  status(txid: string): Promise<TxStatus>;
  rawTransaction(txid: string): Promise<Uint8Array | null>;
  tip(): Promise<ChainTip>;
  feePolicy(): Promise<FeePolicy>;
  /** Status changes pushed by the ledger (fast path; polling status() is the guarantee). */
  subscribe(listener: StatusListener): () => void;
  close(): Promise<void>;
}

export class LedgerUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LedgerUnavailableError';
  }
}
