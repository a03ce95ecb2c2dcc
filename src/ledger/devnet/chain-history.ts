// The chain the devnet does not keep in memory: every block's header stays (136 bytes a block,
// header-chain.ts), everything else is read back on demand from the journal through the index
// (tx-index.ts): a mined transaction's raw bytes, a block's txids, its merkle tree. A few recent
// blocks' txids and trees are kept, since those are what statuses are asked about.
import type { TxStatus } from '../port.js';
import { buildCoinbase, MINER_SCRIPT } from './block.js';
import type { Coin } from './chain-state.js';
import { hexToHash, txidOf } from './hashing.js';
import { HeaderChain, type HeaderRecord } from './header-chain.js';
import type { Journal, LinePos } from './journal.js';
import { merkleLevels, merklePathHex } from './merkle.js';
import { type ParsedTx, parseRawTransaction } from './tx-format.js';
import type { SpendSlot, TxIndex, TxSlot } from './tx-index.js';

interface RecentBlock {
  readonly hash: string;
  readonly txids: readonly string[];
  readonly levels: Uint8Array[][];
}

/** Blocks whose txids and merkle trees stay in memory: the newest ones, and the last asked for. */
const RECENT_BLOCKS = 16;

interface EntryLike {
  readonly e: string;
  readonly raw?: string;
  readonly hash?: string;
  readonly txids?: readonly string[];
  readonly outputs?: ReadonlyArray<{ readonly script: string; readonly satoshis: string }>;
  readonly entries?: readonly EntryLike[];
}

export class ChainHistory {
  readonly headers = new HeaderChain();
  private readonly recent = new Map<number, RecentBlock>();

  constructor(
    readonly journal: Pick<Journal, 'readLine'>,
    readonly index: TxIndex,
  ) {}

  get recentBlocks(): number {
    return this.recent.size;
  }

  get tip(): HeaderRecord | undefined {
    return this.headers.tip;
  }

  /** Where `txid` is in the chain, or undefined (an entry of a disconnected block is not). */
  located(txid: string): TxSlot | undefined {
    const slot = this.index.getTx(txid);
    return slot !== undefined && this.current(slot) ? slot : undefined;
  }

  /** The chain transaction that spent `op`, if one did. */
  spenderOf(op: string): string | undefined {
    const slot = this.index.getSpend(op);
    return slot !== undefined && this.current(slot) ? this.block(slot.height).txids[slot.index] : undefined;
  }

  /** The raw bytes of a chain transaction. */
  rawOf(txid: string): Uint8Array | undefined {
    const slot = this.located(txid);
    if (slot === undefined) return undefined;
    if (slot.index === 0) return this.coinbaseRaw(slot.height);
    const raw = findTx(this.journal.readLine(slot) as EntryLike, txid);
    if (raw === undefined) throw new Error(`devnet journal: ${txid} is not at byte ${slot.offset}`);
    return raw;
  }

  /** The block's txids (coinbase first) and merkle tree. */
  block(height: number): RecentBlock {
    const header = this.headers.at(height);
    if (header === undefined) throw new RangeError(`no block at height ${height}`);
    const kept = this.recent.get(height);
    if (kept !== undefined && kept.hash === header.hash) {
      this.recent.delete(height);
      this.recent.set(height, kept);
      return kept;
    }
    const entry = this.blockEntry(header);
    const txids = [txidOf(this.coinbaseRaw(height)), ...(entry.txids ?? [])];
    return this.keep(height, header.hash, txids);
  }

  /** Keeps a block's txids and tree (the newest block, as it is connected). */
  keep(height: number, hash: string, txids: readonly string[], levels?: Uint8Array[][]): RecentBlock {
    const block = { hash, txids, levels: levels ?? merkleLevels(txids.map(hexToHash)) };
    this.recent.delete(height);
    this.recent.set(height, block);
    if (this.recent.size > RECENT_BLOCKS) this.recent.delete(this.recent.keys().next().value!);
    return block;
  }

  /** Rebuilt from the block's entry: the genesis outputs it names, or the miner's output of its fees. */
  coinbaseRaw(height: number): Uint8Array {
    const header = this.headers.at(height)!;
    const outputs =
      height === 0
        ? (this.blockEntry(header).outputs ?? []).map((o) => ({
            lockingScript: new Uint8Array(Buffer.from(o.script, 'hex')),
            satoshis: BigInt(o.satoshis),
          }))
        : [{ lockingScript: MINER_SCRIPT, satoshis: header.fees }];
    return buildCoinbase(height, header.serial, outputs);
  }

  minedStatus(height: number, index: number): TxStatus {
    return minedStatusIn(this.headers.at(height)!, this.block(height).levels, index);
  }

  /** A chain block's transactions (coinbase first) with their journal lines, read back for a reorg. */
  blockTransactions(height: number): Array<{ readonly parsed: ParsedTx; readonly pos: LinePos }> {
    return this.block(height).txids.map((txid) => {
      const slot = this.located(txid);
      const raw = this.rawOf(txid);
      if (slot === undefined || raw === undefined)
        throw new Error(`devnet: ${txid} of block ${height} is not indexed`);
      return { parsed: parseRawTransaction(raw), pos: { offset: slot.offset, length: slot.length } };
    });
  }

  /** The coin `op` names, spent by a chain transaction: an output of a parent in `sameBlock` or an earlier block. */
  spentCoin(op: string, sameBlock: ReadonlyArray<{ readonly parsed: ParsedTx }>): Coin {
    const sep = op.indexOf(':');
    const parentTxid = op.slice(0, sep);
    const raw = () => this.rawOf(parentTxid) ?? fail(`devnet: the parent of ${op} is not in the chain`);
    const parent = sameBlock.find((p) => p.parsed.txid === parentTxid)?.parsed ?? parseRawTransaction(raw());
    const out = parent.tx.outputs[Number(op.slice(sep + 1))] ?? fail(`devnet: ${op} does not exist`);
    return { satoshis: BigInt(out.satoshis ?? 0), lockingScript: out.lockingScript };
  }

  private current(slot: SpendSlot): boolean {
    return this.headers.tagAt(slot.height) === slot.tag;
  }

  private blockEntry(header: HeaderRecord): EntryLike {
    const entry = findBlock(this.journal.readLine(header.pos) as EntryLike, header.hash);
    if (entry === undefined)
      throw new Error(`devnet journal: block ${header.hash} is not at byte ${header.pos.offset}`);
    return entry;
  }
}

function findBlock(entry: EntryLike, hash: string): EntryLike | undefined {
  if (entry.e === 'block') return entry.hash === hash ? entry : undefined;
  if (entry.e !== 'batch') return undefined;
  for (const sub of entry.entries ?? []) {
    const found = findBlock(sub, hash);
    if (found !== undefined) return found;
  }
  return undefined;
}

function findTx(entry: EntryLike, txid: string): Uint8Array | undefined {
  if (entry.e === 'tx' && entry.raw !== undefined) {
    const raw = new Uint8Array(Buffer.from(entry.raw, 'hex'));
    return txidOf(raw) === txid ? raw : undefined;
  }
  if (entry.e !== 'batch') return undefined;
  for (const sub of entry.entries ?? []) {
    const found = findTx(sub, txid);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The status of the transaction at `index` of a block, its merkle path from the block's tree. */
export function minedStatusIn(
  header: Pick<HeaderRecord, 'hash' | 'time' | 'height'>,
  levels: readonly (readonly Uint8Array[])[],
  index: number,
): TxStatus {
  return {
    kind: 'mined',
    blockHash: header.hash,
    height: header.height,
    index,
    blockTime: header.time,
    merklePath: merklePathHex(levels, index, header.height),
  };
}

function fail(message: string): never {
  throw new Error(message);
}
