// The embedded devnet: a Ledger that behaves like the network (UTXO set, mempool, script and
// fee checks with ARC's error numbers, blocks with real merkle roots and BUMPs, reorgs on
// command) and persists in its data folder (devnet-folder.ts). Every change is applied in
// memory, appended to the journal, and acknowledged (answer, subscriber notification) only once
// the journal is on disk. Memory holds the live state; the history is read back from disk.
import { verifySpend } from '../../domain/verify-spend.js';
import {
  type BroadcastResult,
  type ChainTip,
  type FeePolicy,
  LedgerUnavailableError,
  type StatusListener,
  type TxStatus,
} from '../port.js';
import type { ChainState, StatusChange } from './chain-state.js';
import { ChangeFeed } from './change-feed.js';
import {
  coinbaseOutputsOfGenesis,
  type DevnetEntry,
  encodeBlockEntry,
  genesisOutputsOf,
} from './devnet-entries.js';
import { DEFAULT_CHECKPOINT_BYTES, type DevnetStore, memoryStore, openFolder } from './devnet-folder.js';
import {
  type Devnet,
  type DevnetBlock,
  type DevnetFootprint,
  DevnetGenesisMismatchError,
  type DevnetOptions,
  type DevnetUtxo,
  type GenesisOutput,
  type MinedBlock,
  type ReorgOptions,
  type ReorgResult,
} from './devnet-types.js';
import { blockInfoOf, blockOf, checkReorg, footprintOf, utxosOf } from './devnet-views.js';
import { txidOf } from './hashing.js';
import type { Journal, LinePos } from './journal.js';
import { decodeSubmission, type ParsedTx } from './tx-format.js';
import { validateTransaction } from './tx-validation.js';

export * from './devnet-types.js';

export async function createDevnet(opts: DevnetOptions = {}): Promise<Devnet> {
  const store =
    opts.dataDir === undefined
      ? memoryStore()
      : await openFolder(
          opts.dataDir,
          opts.checkpointBytes ?? DEFAULT_CHECKPOINT_BYTES,
          reportError(opts, 'checkpoint'),
        );
  try {
    const devnet = new EmbeddedDevnet(store, opts);
    await devnet.start(opts.genesis);
    return devnet;
  } catch (err) {
    await store.close(null);
    throw err;
  }
}

const reportError =
  (opts: DevnetOptions, what: string) =>
  (err: unknown): void =>
    opts.onError !== undefined
      ? opts.onError(err)
      : void process.stderr.write(`devnet: ${what} failed: ${err}\n`);

class EmbeddedDevnet implements Devnet {
  readonly policy: { readonly feeRateSatPerKb: bigint; readonly maxTxSizeBytes: number };
  private readonly now: () => number;
  private readonly feed = new ChangeFeed();
  private batch: { entries: DevnetEntry[]; positions: LinePos[] } | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly state: ChainState;
  private readonly journal: Journal;
  private serial: number;

  constructor(
    private readonly store: DevnetStore,
    private readonly opts: DevnetOptions,
  ) {
    ({ state: this.state, journal: this.journal, serial: this.serial } = store);
    this.now = opts.now ?? Date.now;
    this.policy = {
      feeRateSatPerKb: opts.feeRateSatPerKb ?? 1n,
      maxTxSizeBytes: opts.maxTxSizeBytes ?? 10_000_000,
    };
  }

  async start(genesis: readonly GenesisOutput[] | undefined): Promise<void> {
    if (this.state.tip === undefined) {
      this.connect(genesis ?? []);
      await this.commit();
    } else if (genesis !== undefined && !sameOutputs(genesisOutputsOf(this.state), genesis)) {
      throw new DevnetGenesisMismatchError(this.opts.dataDir ?? '(memory)');
    }
    const interval = this.opts.blockIntervalMs ?? 10_000;
    if (interval > 0) {
      this.timer = setInterval(() => {
        if (this.state.mempool.size === 0 || this.closed) return;
        this.mine(1).catch(reportError(this.opts, 'mining'));
      }, interval);
      this.timer.unref();
    }
  }

  async broadcast(rawTx: Uint8Array): Promise<BroadcastResult> {
    this.ensureOpen();
    const result = this.accept(rawTx);
    await this.commit();
    return result;
  }

  /** Each in order (a later one may spend an earlier one's outputs), then one journal sync for all. */
  async broadcastMany(rawTxs: readonly Uint8Array[]): Promise<BroadcastResult[]> {
    this.ensureOpen();
    const results = rawTxs.map((raw) => this.accept(raw));
    await this.commit();
    return results;
  }

  async status(txid: string): Promise<TxStatus> {
    this.ensureOpen();
    await this.journal.sync();
    return this.state.status(txid);
  }

  async rawTransaction(txid: string): Promise<Uint8Array | null> {
    this.ensureOpen();
    await this.journal.sync();
    return this.state.raw(txid)?.slice() ?? null;
  }

  async tip(): Promise<ChainTip> {
    this.ensureOpen();
    await this.journal.sync();
    const tip = this.state.tip!;
    return { height: tip.height, hash: tip.hash, time: tip.time };
  }

  async feePolicy(): Promise<FeePolicy> {
    this.ensureOpen();
    return { satoshisPerKb: this.policy.feeRateSatPerKb };
  }

  subscribe(listener: StatusListener): () => void {
    return this.subscribeChanges((change) => listener(change.txid, change.status));
  }

  subscribeChanges(listener: (change: StatusChange) => void): () => void {
    return this.feed.subscribe(listener);
  }

  async mine(blocks = 1): Promise<MinedBlock[]> {
    this.ensureOpen();
    if (!Number.isSafeInteger(blocks) || blocks < 1)
      throw new RangeError('blocks must be a positive integer');
    const mined: MinedBlock[] = [];
    for (let i = 0; i < blocks; i++) mined.push(this.connect());
    await this.commit();
    return mined;
  }

  async reorg(depth: number, opts: ReorgOptions = {}): Promise<ReorgResult> {
    this.ensureOpen();
    const { disconnected, include } = checkReorg(this.state, depth, opts);
    const evicted: string[] = [];
    const included: BroadcastResult[] = [];
    const connected: MinedBlock[] = [];
    this.batch = { entries: [], positions: [] };
    try {
      for (let i = 0; i < depth; i++) this.apply({ e: 'disconnect' }, () => this.state.disconnect());
      if (opts.drop !== undefined && opts.drop.length > 0) {
        evicted.push(...this.evict(opts.drop, 'dropped from the chain by a devnet reorg'));
      }
      for (const parsed of include) {
        const rivals = new Set(
          parsed.tx.inputs.flatMap((input) => {
            const found = this.state.lookup(`${input.sourceTXID}:${input.sourceOutputIndex}`);
            return found.kind === 'spent' && found.where === 'mempool' ? [found.by] : [];
          }),
        );
        if (rivals.size > 0)
          evicted.push(...this.evict([...rivals], `replaced by ${parsed.txid} in a devnet reorg`));
        included.push(this.submit(parsed));
      }
      const empty = opts.leaveInMempool === true ? [] : undefined;
      for (let i = 0; i < depth; i++) connected.push(this.connect(undefined, empty));
    } finally {
      const { entries, positions } = this.batch;
      this.batch = null;
      if (entries.length > 0) {
        const at = this.journal.append({ e: 'batch', entries });
        for (const pos of positions) Object.assign(pos, at);
      }
      this.state.indexConnected();
    }
    await this.commit();
    return { disconnected, connected, evicted, included };
  }

  isInStaleBlock(txid: string): boolean {
    return this.state.isStale(txid);
  }

  blocks(): DevnetBlock[] {
    return Array.from({ length: this.state.headers.length }, (_, height) => this.block(height)!);
  }

  block(height: number): DevnetBlock | undefined {
    return blockOf(this.state, height);
  }

  footprint(): DevnetFootprint {
    return footprintOf(this.state, this.store.replayed);
  }

  utxos(lockedBy?: Uint8Array): DevnetUtxo[] {
    return utxosOf(this.state, lockedBy);
  }

  mempoolTxids(): string[] {
    return [...this.state.mempool.keys()];
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer !== null) clearInterval(this.timer);
    await this.store.close(this.serial);
  }

  /** Decodes a submission (raw, EF or BEEF: unknown ancestors first) and accepts it, not yet synced. */
  private accept(rawTx: Uint8Array): BroadcastResult {
    const decoded = decodeSubmission(rawTx);
    if (!decoded.ok) {
      return { ok: false, txid: txidOf(rawTx), arcCode: 463, reason: decoded.reason, retryable: false };
    }
    if (decoded.format === 'beef') {
      for (const ancestor of decoded.ancestors) if (!this.state.has(ancestor.txid)) this.submit(ancestor);
    }
    return this.submit(decoded.tx);
  }

  /** Validates and accepts one transaction (journaled, notification queued); answers its result. */
  private submit(parsed: ParsedTx): BroadcastResult {
    if (this.state.has(parsed.txid))
      return { ok: true, txid: parsed.txid, status: this.state.status(parsed.txid) };
    const tip = this.state.tip!;
    let fee = 0n;
    const refusal = validateTransaction(
      this.state,
      parsed,
      {
        feeRateSatPerKb: this.policy.feeRateSatPerKb,
        maxTxSizeBytes: this.policy.maxTxSizeBytes,
        nextHeight: tip.height + 1,
        nextTime: this.blockTime(),
      },
      verifySpend,
      (paid) => {
        fee = paid;
      },
    );
    if (refusal !== null) {
      if (refusal.conflict?.where === 'mempool') {
        this.feed.enqueue(this.state.recordDoubleSpend(parsed.txid, refusal.conflict.competingTxids));
      }
      const { arcCode, reason, retryable } = refusal;
      return { ok: false, txid: parsed.txid, arcCode, reason, retryable };
    }
    this.apply({ e: 'tx', raw: Buffer.from(parsed.raw).toString('hex') }, (pos) =>
      // The fee validation found: accept need not look the coins up again.
      this.state.accept(parsed, pos, false, fee),
    );
    return { ok: true, txid: parsed.txid, status: { kind: 'mempool' } };
  }

  /** Mines a block of `txids` (default: the whole mempool; none for the genesis block). */
  private connect(genesis?: readonly GenesisOutput[], txids?: readonly string[]): MinedBlock {
    const spec = {
      time: this.blockTime(),
      serial: this.serial++,
      txids: genesis !== undefined ? [] : txids !== undefined ? [...txids] : [...this.state.mempool.keys()],
      ...(genesis !== undefined && { coinbaseOutputs: coinbaseOutputsOfGenesis(genesis) }),
    };
    const pos = unwritten();
    const changes = this.state.connect(spec, pos);
    const block = this.state.tip!;
    this.record(encodeBlockEntry(spec, block.hash), pos);
    this.feed.enqueue(changes);
    return this.blockInfo(block.height);
  }

  private evict(txids: readonly string[], reason: string): string[] {
    const changes = this.apply({ e: 'evict', txids: [...txids], reason }, () =>
      this.state.evict(txids, reason),
    );
    return changes.map((c) => c.txid);
  }

  private apply(entry: DevnetEntry, change: (pos: LinePos) => StatusChange[]): StatusChange[] {
    const pos = unwritten();
    const changes = change(pos);
    this.record(entry, pos);
    this.feed.enqueue(changes);
    return changes;
  }

  /** Journals the entry and tells `pos` (what the state keeps of it) where its line is. */
  private record(entry: DevnetEntry, pos: LinePos): void {
    if (this.batch !== null) {
      this.batch.entries.push(entry);
      this.batch.positions.push(pos);
      return;
    }
    Object.assign(pos, this.journal.append(entry));
    this.state.indexConnected();
  }

  /** Waits for the journal, then tells subscribers what it now holds; checkpoints now and then. */
  private async commit(): Promise<void> {
    await this.feed.deliverAfter(this.journal.sync());
    if (!this.closed) this.store.committed(this.serial);
  }

  private blockInfo(height: number): MinedBlock {
    return blockInfoOf(this.state, height);
  }

  private blockTime(): number {
    return Math.max(this.state.tip?.time ?? 0, Math.floor(this.now() / 1000));
  }

  private ensureOpen(): void {
    if (this.closed) throw new LedgerUnavailableError('the devnet is closed');
  }
}

/** A position the journal fills in when the entry is appended. */
const unwritten = (): LinePos => ({ offset: -1, length: 0 });

function sameOutputs(a: readonly GenesisOutput[], b: readonly GenesisOutput[]): boolean {
  return (
    a.length === b.length &&
    a.every(
      (o, i) =>
        o.satoshis === b[i]!.satoshis &&
        Buffer.from(o.lockingScript).equals(Buffer.from(b[i]!.lockingScript)),
    )
  );
}
