// The devnet's public shape: options, the Devnet interface (the Ledger port plus control
// operations: mine, reorg, inspection) and what those operations answer.
import type { BroadcastResult, Ledger } from '../port.js';
import type { CoinbaseOutput } from './block.js';
import type { StatusChange } from './chain-state.js';

/** An output of the genesis coinbase: where the service's funds come from. */
export type GenesisOutput = CoinbaseOutput;

export interface DevnetOptions {
  /**
   * Folder of the journal, its index, the checkpoint and the lock. When absent the devnet keeps
   * everything in memory, its history too (for tests).
   */
  readonly dataDir?: string;
  /** Outputs of the coinbase of block 0, created at the first open of the folder. */
  readonly genesis?: readonly GenesisOutput[];
  /** Mines a block this often when the mempool holds transactions; 0 = only on command. Default 10000. */
  readonly blockIntervalMs?: number;
  /** Mining fee policy. Default 1 sat/kB (ARC's published policy). */
  readonly feeRateSatPerKb?: bigint;
  /** Largest transaction accepted (474 above). Default 10 MB. */
  readonly maxTxSizeBytes?: number;
  /** Clock, milliseconds since the epoch. Default Date.now. */
  readonly now?: () => number;
  /**
   * A checkpoint of the live state is written once the journal has grown by this many bytes
   * since the last one (and at close), so an open replays at most about this much. Default 4 MiB.
   */
  readonly checkpointBytes?: number;
  /** Errors of the interval miner and of background checkpoints. Default: written to stderr. */
  readonly onError?: (err: unknown) => void;
}

export interface MinedBlock {
  readonly height: number;
  readonly hash: string;
  /** Unix seconds. */
  readonly time: number;
  /** Coinbase first. */
  readonly txids: readonly string[];
}

export interface DevnetBlock extends MinedBlock {
  /** The 80-byte header, hex. */
  readonly header: string;
}

export interface ReorgOptions {
  /** Transactions of the disconnected blocks (or the mempool) to drop, with their descendants. */
  readonly drop?: readonly string[];
  /** Raw transactions mined in the new chain, replacing whatever mempool transaction they conflict with. */
  readonly include?: readonly Uint8Array[];
  /**
   * The new chain's blocks are empty (a competing miner that had none of them): the disconnected
   * transactions wait in the mempool, MINED_IN_STALE_BLOCK, until the next mine(). Not with `include`.
   */
  readonly leaveInMempool?: boolean;
}

export interface ReorgResult {
  readonly disconnected: readonly MinedBlock[];
  readonly connected: readonly MinedBlock[];
  /** Dropped or replaced transactions, descendants included: now rejected. */
  readonly evicted: readonly string[];
  readonly included: readonly BroadcastResult[];
}

export interface DevnetUtxo {
  readonly txid: string;
  readonly vout: number;
  readonly satoshis: bigint;
  readonly lockingScript: Uint8Array;
}

export interface Devnet extends Ledger {
  mine(blocks?: number): Promise<MinedBlock[]>;
  reorg(depth: number, opts?: ReorgOptions): Promise<ReorgResult>;
  /** Status changes with the stale-block flag ARC reports (MINED_IN_STALE_BLOCK). */
  subscribeChanges(listener: (change: StatusChange) => void): () => void;
  isInStaleBlock(txid: string): boolean;
  /** Every block of the chain (read from disk: as long as the history, for tools and tests). */
  blocks(): DevnetBlock[];
  block(height: number): DevnetBlock | undefined;
  /** What the devnet holds in memory, counted: bounded by the live set, not the history. */
  footprint(): DevnetFootprint;
  /**
   * The confirmed UTXO set (unspendable outputs left out), or only the outputs locked by
   * `lockedBy`: those are found without reading the others back from disk.
   */
  utxos(lockedBy?: Uint8Array): DevnetUtxo[];
  mempoolTxids(): string[];
  readonly policy: { readonly feeRateSatPerKb: bigint; readonly maxTxSizeBytes: number };
}

export interface DevnetFootprint {
  /** One per block (80 bytes and a few numbers each). */
  readonly headers: number;
  /** Live confirmed outputs (a packed outpoint each in memory). */
  readonly utxos: number;
  /** Of those, the coins of recent blocks kept whole (at most HOT_MOST); the rest are read from disk. */
  readonly hotCoins: number;
  readonly mempool: number;
  readonly mempoolSpends: number;
  /** Blocks whose txids and merkle trees are kept (at most 16). */
  readonly recentBlocks: number;
  /** Statuses of transactions that left (at most 10,000). */
  readonly rejected: number;
  readonly doubleSpends: number;
  /** Journal entries the open read (after the checkpoint, or all of them without one). */
  readonly replayedAtOpen: number;
}

export class DevnetGenesisMismatchError extends Error {
  constructor(dataDir: string) {
    super(
      `the devnet in ${dataDir} was created with other genesis outputs; use a new data folder to change them`,
    );
    this.name = 'DevnetGenesisMismatchError';
  }
}
