// The devnet's state in memory: the active chain, its UTXO set, the mempool, and the
// statuses of transactions that left (evicted, lost a double spend). No I/O, no clock: every
// change is one of four deterministic operations (accept, connect, disconnect, evict), applied
// alike when live and when the journal is replayed at open.
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
import { hashToHex, hexToHash } from './hashing.js';
import { merkleLevels, merklePathHex, merkleRootOf } from './merkle.js';
import { type ParsedTx, parseRawTransaction } from './tx-format.js';

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
}

export interface BlockRecord {
  readonly height: number;
  readonly hash: string;
  readonly header: Uint8Array;
  /** Unix seconds. */
  readonly time: number;
  readonly serial: number;
  /** Index 0 is the coinbase. */
  readonly txids: readonly string[];
  readonly fees: readonly bigint[];
  readonly levels: Uint8Array[][];
  /** The coins the block spent, to restore them when it is disconnected. */
  readonly undo: ReadonlyArray<readonly [string, Coin]>;
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

export class ChainState {
  readonly blocks: BlockRecord[] = [];
  readonly utxo = new Map<string, Coin>();
  readonly mempool = new Map<string, MempoolEntry>();
  private readonly mempoolSpends = new Map<string, string>();
  private readonly chainSpends = new Map<string, string>();
  private readonly chainTx = new Map<string, { readonly height: number; readonly index: number }>();
  private readonly raws = new Map<string, Uint8Array>();
  private readonly rejected = new Map<string, TxStatus>();
  /** Refused for spending what a mempool transaction spends: loser -> winners. */
  private readonly doubleSpends = new Map<string, readonly string[]>();

  get tip(): BlockRecord | undefined {
    return this.blocks[this.blocks.length - 1];
  }

  raw(txid: string): Uint8Array | undefined {
    return this.raws.get(txid);
  }

  /** Mempool or chain: a broadcast of it answers its status. */
  has(txid: string): boolean {
    return this.mempool.has(txid) || this.chainTx.has(txid);
  }

  lookup(op: string): CoinLookup {
    const mempoolSpender = this.mempoolSpends.get(op);
    if (mempoolSpender !== undefined) return { kind: 'spent', by: mempoolSpender, where: 'mempool' };
    const confirmed = this.utxo.get(op);
    if (confirmed !== undefined) return { kind: 'coin', coin: confirmed };
    const chainSpender = this.chainSpends.get(op);
    if (chainSpender !== undefined) return { kind: 'spent', by: chainSpender, where: 'chain' };
    const sep = op.indexOf(':');
    const parentTxid = op.slice(0, sep);
    const parent = this.mempool.get(parentTxid);
    if (parent !== undefined) {
      const out = parent.tx.outputs[Number(op.slice(sep + 1))];
      if (out !== undefined && !isUnspendable(out.lockingScript.toUint8Array())) {
        return {
          kind: 'coin',
          coin: { satoshis: BigInt(out.satoshis ?? 0), lockingScript: out.lockingScript },
        };
      }
    }
    return { kind: 'missing', parentKnown: this.has(parentTxid) };
  }

  status(txid: string): TxStatus {
    const mined = this.chainTx.get(txid);
    if (mined !== undefined) return minedStatus(this.blocks[mined.height]!, mined.index);
    if (this.mempool.has(txid)) return { kind: 'mempool' };
    const competing = this.doubleSpends.get(txid);
    if (competing !== undefined) return { kind: 'double-spend', competingTxids: competing };
    return this.rejected.get(txid) ?? { kind: 'unknown' };
  }

  isStale(txid: string): boolean {
    return this.mempool.get(txid)?.staleBlock === true;
  }

  /** Adds a validated transaction to the mempool. */
  accept(parsed: ParsedTx, staleBlock = false, fee?: bigint): StatusChange[] {
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
    this.mempool.set(parsed.txid, { ...parsed, fee: paid, spends, staleBlock });
    for (const op of spends) this.mempoolSpends.set(op, parsed.txid);
    this.raws.set(parsed.txid, parsed.raw);
    this.rejected.delete(parsed.txid);
    this.doubleSpends.delete(parsed.txid);
    return [{ txid: parsed.txid, status: { kind: 'mempool' }, staleBlock }];
  }

  /** Records a refused double spend against the mempool: its outcome follows the winners'. */
  recordDoubleSpend(txid: string, competingTxids: readonly string[]): StatusChange[] {
    this.doubleSpends.set(txid, competingTxids);
    return [{ txid, status: this.status(txid), staleBlock: false }];
  }

  connect(spec: BlockSpec): StatusChange[] {
    const height = this.blocks.length;
    const entries = spec.txids.map((txid) => {
      const entry = this.mempool.get(txid);
      if (entry === undefined) throw new Error(`cannot mine ${txid}: not in the mempool`);
      return entry;
    });
    const fees = entries.map((e) => e.fee);
    const outputs = spec.coinbaseOutputs ?? [
      { lockingScript: MINER_SCRIPT, satoshis: fees.reduce((a, b) => a + b, 0n) },
    ];
    const coinbase = parseRawTransaction(buildCoinbase(height, spec.serial, outputs));
    this.addOutputs(coinbase);
    this.raws.set(coinbase.txid, coinbase.raw);
    this.chainTx.set(coinbase.txid, { height, index: 0 });
    const undo: Array<readonly [string, Coin]> = [];
    entries.forEach((entry, i) => {
      for (const op of entry.spends) {
        const coin = this.utxo.get(op);
        if (coin === undefined)
          throw new Error(`cannot mine ${entry.txid}: input ${op} is not in the UTXO set`);
        this.utxo.delete(op);
        undo.push([op, coin]);
        this.chainSpends.set(op, entry.txid);
        this.mempoolSpends.delete(op);
      }
      this.addOutputs(entry);
      this.mempool.delete(entry.txid);
      this.chainTx.set(entry.txid, { height, index: i + 1 });
    });
    const txids = [coinbase.txid, ...spec.txids];
    const levels = merkleLevels(txids.map(hexToHash));
    const prev = this.tip;
    const header = encodeHeader({
      prevHash: prev === undefined ? ZERO_HASH : hexToHash(prev.hash),
      merkleRoot: merkleRootOf(levels),
      time: spec.time,
    });
    const block: BlockRecord = {
      height,
      hash: hashToHex(headerHash(header)),
      header,
      time: spec.time,
      serial: spec.serial,
      txids,
      fees: [0n, ...fees],
      levels,
      undo,
    };
    this.blocks.push(block);
    const changes: StatusChange[] = [];
    for (let i = 1; i < txids.length; i++) {
      changes.push({ txid: txids[i]!, status: minedStatus(block, i), staleBlock: false });
    }
    changes.push(...this.settleDoubleSpends(spec.txids));
    return changes;
  }

  /** Takes the tip block off the chain; its transactions go back to the front of the mempool. */
  disconnect(): StatusChange[] {
    if (this.blocks.length <= 1) throw new Error('the genesis block cannot be disconnected');
    const block = this.blocks.pop()!;
    const inBlock = new Set(block.txids);
    const returned: MempoolEntry[] = [];
    block.txids.forEach((txid, index) => {
      const parsed = parseRawTransaction(this.raws.get(txid)!);
      for (let vout = 0; vout < parsed.tx.outputs.length; vout++) this.utxo.delete(outpoint(txid, vout));
      this.chainTx.delete(txid);
      if (index === 0) {
        this.raws.delete(txid);
        return;
      }
      const spends = parsed.tx.inputs.map((input) =>
        outpoint(input.sourceTXID ?? '', input.sourceOutputIndex),
      );
      returned.push({ ...parsed, fee: block.fees[index]!, spends, staleBlock: true });
    });
    for (const [op, coin] of block.undo) {
      this.chainSpends.delete(op);
      if (!inBlock.has(op.slice(0, op.indexOf(':')))) this.utxo.set(op, coin);
    }
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
      this.raws.delete(txid);
      const why = roots.has(txid) ? reason : `${reason} (spends an evicted transaction)`;
      const status: TxStatus = { kind: 'rejected', reason: why };
      this.remember(txid, status);
      return { txid, status, staleBlock: false };
    });
  }

  private addOutputs(parsed: ParsedTx): void {
    parsed.tx.outputs.forEach((out, vout) => {
      if (isUnspendable(out.lockingScript.toUint8Array())) return;
      this.utxo.set(outpoint(parsed.txid, vout), {
        satoshis: BigInt(out.satoshis ?? 0),
        lockingScript: out.lockingScript,
      });
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

  private remember(txid: string, status: TxStatus): void {
    this.rejected.delete(txid);
    this.rejected.set(txid, status);
    if (this.rejected.size > REJECTED_MEMORY) this.rejected.delete(this.rejected.keys().next().value!);
  }
}

export function minedStatus(block: BlockRecord, index: number): TxStatus {
  return {
    kind: 'mined',
    blockHash: block.hash,
    height: block.height,
    index,
    blockTime: block.time,
    merklePath: merklePathHex(block.levels, index, block.height),
  };
}
