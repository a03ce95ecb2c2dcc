// The devnet's state: in memory what validation and mining need (the UTXO set of live outputs as
// packed keys, with the recent blocks' coins whole: live-outputs.ts; the mempool, the headers, the
// statuses of transactions that left: evicted, lost a double spend), the rest of the chain on
// disk behind `ChainHistory`. No clock: every change is one of
// four deterministic operations (accept, connect, disconnect, evict), applied alike when live
// and when the journal is replayed at open.
import type { LockingScript } from '@bsv/sdk';
import type { TxStatus } from '../port.js';
import {
  buildCoinbase,
  type CoinbaseOutput,
  encodeHeader,
  headerHash,
  isUnspendable,
  MINER_SCRIPT,
  ZERO_HASH,
} from './block.js';
import { type ChainHistory, minedStatusIn } from './chain-history.js';
import { hashToHex, hexToHash } from './hashing.js';
import type { HeaderChain, HeaderRecord } from './header-chain.js';
import type { LinePos } from './journal.js';
import { LiveOutputs, scriptTag } from './live-outputs.js';
import { merkleLevels, merkleRootOf } from './merkle.js';
import { type ParsedTx, parseRawTransaction } from './tx-format.js';
import { hashTag } from './tx-index.js';
import { coinAt, type OutputsOf, outputsOf } from './tx-outputs.js';

export interface Coin {
  readonly satoshis: bigint;
  readonly lockingScript: LockingScript;
}

export interface MempoolEntry extends ParsedTx {
  readonly fee: bigint;
  /** Outpoints (`txid:vout`) it spends. */
  readonly spends: readonly string[];
  /** It was mined in a block that a reorg disconnected (ARC: MINED_IN_STALE_BLOCK). */
  readonly staleBlock: boolean;
  /** Its journal line: where its raw bytes are read from once it is mined. */
  readonly pos: LinePos;
}

export interface StatusChange {
  readonly txid: string;
  readonly status: TxStatus;
  readonly staleBlock: boolean;
}

export interface BlockSpec {
  readonly time: number;
  readonly serial: number;
  /** Mempool transactions to mine, in order (parents before children). */
  readonly txids: readonly string[];
  /** The coinbase's outputs (genesis); otherwise the fees go to an unspendable miner output. */
  readonly coinbaseOutputs?: readonly CoinbaseOutput[];
}

export type CoinLookup =
  | { readonly kind: 'coin'; readonly coin: Coin }
  | { readonly kind: 'spent'; readonly by: string; readonly where: 'mempool' | 'chain' }
  | { readonly kind: 'missing'; readonly parentKnown: boolean };

export const outpoint = (txid: string, vout: number): string => `${txid}:${vout}`;

const REJECTED_MEMORY = 10_000;
/** A connected block whose index entries wait for its journal position (a reorg's batch line). */
interface Unindexed {
  readonly height: number;
  readonly tag: number;
  /** Filled in once the journal has the block's entry. */
  readonly pos: LinePos;
  readonly txids: readonly string[];
  readonly entries: readonly MempoolEntry[];
}

export class ChainState {
  /** Confirmed live outputs; a coin not of a recent block is read back from the chain on disk. */
  readonly utxo: LiveOutputs;
  readonly mempool = new Map<string, MempoolEntry>();
  readonly mempoolSpends = new Map<string, string>();
  readonly rejected = new Map<string, TxStatus>();
  /** Refused for spending what a mempool transaction spends: loser -> winners. */
  readonly doubleSpends = new Map<string, readonly string[]>();
  private unindexed: Unindexed[] = [];

  constructor(readonly history: ChainHistory) {
    // A cold coin's parent is read from disk; the last one is kept as its bytes and its outputs'
    // offsets (tx-outputs.ts), since a pool's split (hundreds of outputs) is spent one output at a
    // time. A txid names its bytes for good, so a kept parent is never stale (whether the coin is
    // live is asked first). One only: a split of 1,000 outputs is about 35 KB as bytes.
    let parent: { readonly txid: string; readonly outputs: OutputsOf } | undefined;
    this.utxo = new LiveOutputs((op) => {
      const sep = op.indexOf(':');
      const txid = op.slice(0, sep);
      if (parent?.txid !== txid) {
        const raw = history.rawOf(txid);
        if (raw === undefined) throw new Error(`devnet: the parent of ${op} is not in the chain`);
        parent = { txid, outputs: outputsOf(raw) };
      }
      const coin = coinAt(parent.outputs, Number(op.slice(sep + 1)));
      if (coin === undefined) throw new Error(`devnet: ${op} does not exist`);
      return coin;
    });
  }

  get tip(): HeaderRecord | undefined {
    return this.history.tip;
  }

  get headers(): HeaderChain {
    return this.history.headers;
  }

  raw(txid: string): Uint8Array | undefined {
    return this.mempool.get(txid)?.raw ?? this.history.rawOf(txid);
  }

  /** Mempool or chain: a broadcast of it answers its status. */
  has(txid: string): boolean {
    return this.mempool.has(txid) || this.history.located(txid) !== undefined;
  }

  lookup(op: string): CoinLookup {
    const mempoolSpender = this.mempoolSpends.get(op);
    if (mempoolSpender !== undefined) return { kind: 'spent', by: mempoolSpender, where: 'mempool' };
    const confirmed = this.utxo.get(op);
    if (confirmed !== undefined) return { kind: 'coin', coin: confirmed };
    const sep = op.indexOf(':');
    const parentTxid = op.slice(0, sep);
    // An output of a mempool transaction: no chain transaction can have spent it.
    const parent = this.mempool.get(parentTxid);
    if (parent !== undefined) {
      const out = parent.tx.outputs[Number(op.slice(sep + 1))];
      if (out !== undefined && !isUnspendable(out.lockingScript.toUint8Array())) {
        return {
          kind: 'coin',
          coin: { satoshis: BigInt(out.satoshis ?? 0), lockingScript: out.lockingScript },
        };
      }
      return { kind: 'missing', parentKnown: true };
    }
    const chainSpender = this.history.spenderOf(op);
    if (chainSpender !== undefined) return { kind: 'spent', by: chainSpender, where: 'chain' };
    return { kind: 'missing', parentKnown: this.has(parentTxid) };
  }

  status(txid: string): TxStatus {
    if (this.mempool.has(txid)) return { kind: 'mempool' };
    const mined = this.history.located(txid);
    if (mined !== undefined) return this.history.minedStatus(mined.height, mined.index);
    const competing = this.doubleSpends.get(txid);
    if (competing !== undefined) return { kind: 'double-spend', competingTxids: competing };
    return this.rejected.get(txid) ?? { kind: 'unknown' };
  }

  isStale(txid: string): boolean {
    return this.mempool.get(txid)?.staleBlock === true;
  }

  /** Adds a validated transaction to the mempool; `pos` is its journal line. */
  accept(parsed: ParsedTx, pos: LinePos, staleBlock = false, fee?: bigint): StatusChange[] {
    const spends = parsed.tx.inputs.map((input) => outpoint(input.sourceTXID ?? '', input.sourceOutputIndex));
    let paid = fee;
    if (paid === undefined) {
      let sum = 0n;
      for (const op of spends) {
        const found = this.lookup(op);
        if (found.kind !== 'coin')
          throw new Error(`cannot accept ${parsed.txid}: input ${op} is ${found.kind}`);
        sum += found.coin.satoshis;
      }
      paid = sum - parsed.tx.outputs.reduce((total, out) => total + BigInt(out.satoshis ?? 0), 0n);
    }
    this.mempool.set(parsed.txid, { ...parsed, fee: paid, spends, staleBlock, pos });
    for (const op of spends) this.mempoolSpends.set(op, parsed.txid);
    this.rejected.delete(parsed.txid);
    this.doubleSpends.delete(parsed.txid);
    return [{ txid: parsed.txid, status: { kind: 'mempool' }, staleBlock }];
  }

  /** Records a refused double spend against the mempool: its outcome follows the winners'. */
  recordDoubleSpend(txid: string, competingTxids: readonly string[]): StatusChange[] {
    this.doubleSpends.set(txid, competingTxids);
    return [{ txid, status: this.status(txid), staleBlock: false }];
  }

  /** Mines a block; `pos` is the journal line of its entry (filled in later within a batch). */
  connect(spec: BlockSpec, pos: LinePos): StatusChange[] {
    const height = this.history.headers.length;
    const entries = spec.txids.map((txid) => {
      const entry = this.mempool.get(txid);
      if (entry === undefined) throw new Error(`cannot mine ${txid}: not in the mempool`);
      return entry;
    });
    const fees = entries.reduce((sum, e) => sum + e.fee, 0n);
    const outputs = spec.coinbaseOutputs ?? [{ lockingScript: MINER_SCRIPT, satoshis: fees }];
    const coinbase = parseRawTransaction(buildCoinbase(height, spec.serial, outputs));
    this.addOutputs(coinbase, height);
    for (const entry of entries) {
      for (const op of entry.spends) {
        if (!this.utxo.delete(op))
          throw new Error(`cannot mine ${entry.txid}: input ${op} is not in the UTXO set`);
        this.mempoolSpends.delete(op);
      }
      this.addOutputs(entry, height);
      this.mempool.delete(entry.txid);
    }
    const txids = [coinbase.txid, ...spec.txids];
    const levels = merkleLevels(txids.map(hexToHash));
    const prev = this.tip;
    const header = encodeHeader({
      prevHash: prev === undefined ? ZERO_HASH : hexToHash(prev.hash),
      merkleRoot: merkleRootOf(levels),
      time: spec.time,
    });
    const hash = hashToHex(headerHash(header));
    this.history.headers.push({ hash, header, serial: spec.serial, pos, fees });
    this.history.keep(height, hash, txids, levels);
    this.unindexed.push({ height, tag: hashTag(hash), pos, txids, entries });
    const changes: StatusChange[] = [];
    for (let i = 1; i < txids.length; i++) {
      const status = minedStatusIn({ hash, time: spec.time, height }, levels, i);
      changes.push({ txid: txids[i]!, status, staleBlock: false });
    }
    changes.push(...this.settleDoubleSpends(spec.txids));
    return changes;
  }

  /** Writes the index entries of the blocks connected since the last call (their lines are known now). */
  indexConnected(): void {
    for (const { height, tag, pos, txids, entries } of this.unindexed) {
      this.history.headers.setPos(height, pos);
      this.history.index.putTx(txids[0]!, { height, index: 0, tag, ...pos });
      entries.forEach((entry, i) => {
        this.history.index.putTx(entry.txid, { height, index: i + 1, tag, ...entry.pos });
        for (const op of entry.spends) this.history.index.putSpend(op, { height, index: i + 1, tag });
      });
    }
    this.unindexed = [];
    // Every connected block is indexed now: the older coins can be read back from disk.
    this.utxo.cool(this.headers.length - 1);
  }

  /** Takes the tip block off the chain; its transactions go back to the front of the mempool. */
  disconnect(): StatusChange[] {
    const tip = this.tip;
    if (tip === undefined || tip.height === 0) throw new Error('the genesis block cannot be disconnected');
    this.indexConnected();
    const txs = this.history.blockTransactions(tip.height);
    const inBlock = new Set(txs.map((t) => t.parsed.txid));
    const returned: MempoolEntry[] = [];
    txs.forEach(({ parsed, pos }, index) => {
      for (let vout = 0; vout < parsed.tx.outputs.length; vout++)
        this.utxo.delete(outpoint(parsed.txid, vout));
      if (index === 0) return;
      const spends = parsed.tx.inputs.map((input) =>
        outpoint(input.sourceTXID ?? '', input.sourceOutputIndex),
      );
      let paid = 0n;
      for (const op of spends) {
        const coin = this.history.spentCoin(op, txs);
        paid += coin.satoshis;
        // What the block spent of earlier blocks is unspent again.
        if (!inBlock.has(op.slice(0, op.indexOf(':'))))
          this.utxo.addCold(op, scriptTag(coin.lockingScript.toUint8Array()));
      }
      paid -= parsed.tx.outputs.reduce((total, out) => total + BigInt(out.satoshis ?? 0), 0n);
      returned.push({ ...parsed, fee: paid, spends, staleBlock: true, pos });
    });
    this.history.headers.pop();
    const rest = [...this.mempool.values()];
    this.mempool.clear();
    for (const entry of [...returned, ...rest]) this.mempool.set(entry.txid, entry);
    for (const entry of returned) for (const op of entry.spends) this.mempoolSpends.set(op, entry.txid);
    return returned.map((e) => ({ txid: e.txid, status: { kind: 'mempool' }, staleBlock: true }));
  }

  /** Removes transactions and their mempool descendants; they become rejected with `reason`. */
  evict(txids: readonly string[], reason: string): StatusChange[] {
    const roots = new Set(txids);
    const doomed: string[] = [];
    const seen = new Set<string>();
    const queue = txids.filter((t) => this.mempool.has(t));
    while (queue.length > 0) {
      const txid = queue.shift()!;
      if (seen.has(txid)) continue;
      seen.add(txid);
      doomed.push(txid);
      const entry = this.mempool.get(txid)!;
      entry.tx.outputs.forEach((_, vout) => {
        const child = this.mempoolSpends.get(outpoint(txid, vout));
        if (child !== undefined) queue.push(child);
      });
    }
    return doomed.map((txid) => {
      const entry = this.mempool.get(txid)!;
      for (const op of entry.spends) this.mempoolSpends.delete(op);
      this.mempool.delete(txid);
      const why = roots.has(txid) ? reason : `${reason} (spends an evicted transaction)`;
      const status: TxStatus = { kind: 'rejected', reason: why };
      this.remember(txid, status);
      return { txid, status, staleBlock: false };
    });
  }

  /** Keeps a status of a transaction that left (a checkpoint's, at open). */
  remember(txid: string, status: TxStatus): void {
    this.rejected.delete(txid);
    this.rejected.set(txid, status);
    if (this.rejected.size > REJECTED_MEMORY) this.rejected.delete(this.rejected.keys().next().value!);
  }

  private addOutputs(parsed: ParsedTx, height: number): void {
    parsed.tx.outputs.forEach((out, vout) => {
      const script = out.lockingScript.toUint8Array();
      if (isUnspendable(script)) return;
      // A copy: the parsed transaction (and any buffer its script shares) is not kept.
      this.utxo.addHot(outpoint(parsed.txid, vout), height, BigInt(out.satoshis ?? 0), script.slice());
    });
  }

  /** Losers of a double spend whose winner was just mined become rejected. */
  private settleDoubleSpends(mined: readonly string[]): StatusChange[] {
    if (this.doubleSpends.size === 0) return [];
    const winners = new Set(mined);
    const changes: StatusChange[] = [];
    for (const [loser, competing] of this.doubleSpends) {
      const winner = competing.find((t) => winners.has(t));
      if (winner === undefined) continue;
      this.doubleSpends.delete(loser);
      const status: TxStatus = {
        kind: 'rejected',
        reason: `double spend: competing transaction ${winner} was mined`,
      };
      this.remember(loser, status);
      changes.push({ txid: loser, status, staleBlock: false });
    }
    return changes;
  }
}
