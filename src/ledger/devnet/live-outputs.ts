// The devnet's UTXO set of confirmed outputs (ADR 0017). Memory holds each live outpoint as a
// packed key (the txid's 32 bytes as a one-byte string, then the output index) with a 30-bit tag
// of its script, so that a listing of the outputs locked by one script reads only those back:
// about 90 bytes a coin with the map's slot. And the coins of the last HOT_BLOCKS blocks whole, since those are
// what the next transactions spend; any other coin's amount and script are read back from its
// transaction on disk (the index and the journal) when asked for. The set still grows with the
// outputs nobody spends (a fee address's, say), as a real ledger's does, but no longer by the
// 700 bytes a coin that a parsed script and its cached bytes cost.
import { LockingScript } from '@bsv/sdk';
import type { Coin } from './chain-state.js';

/** Blocks whose new coins stay in memory whole. */
export const HOT_BLOCKS = 16;
/** At most this many coins in memory whole, whatever the blocks hold. */
export const HOT_MOST = 20_000;

interface HotCoin {
  readonly height: number;
  readonly satoshis: bigint;
  readonly script: Uint8Array;
}

/** `txid:vout` as a short key: 32 one-byte characters of the txid, then the vout in decimal. */
export function packOutpoint(op: string): string {
  const sep = op.indexOf(':');
  return Buffer.from(op.slice(0, sep), 'hex').toString('latin1') + op.slice(sep + 1);
}

export function unpackOutpoint(key: string): { readonly txid: string; readonly vout: number } {
  return { txid: Buffer.from(key.slice(0, 32), 'latin1').toString('hex'), vout: Number(key.slice(32)) };
}

export class LiveOutputs {
  /** Packed outpoint -> its script's tag. */
  readonly #live = new Map<string, number>();
  /** Coins created in recent blocks, oldest first (added in height order). */
  readonly #hot = new Map<string, HotCoin>();

  /** `read(op)`: a confirmed coin's amount and script from disk, for one that is not hot. */
  constructor(private readonly read: (op: string) => Coin) {}

  get size(): number {
    return this.#live.size;
  }

  get hotSize(): number {
    return this.#hot.size;
  }

  has(op: string): boolean {
    return this.#live.has(packOutpoint(op));
  }

  /** The coin, if it is live: from memory when hot, else read back from its transaction. */
  get(op: string): Coin | undefined {
    const key = packOutpoint(op);
    if (!this.#live.has(key)) return undefined;
    const hot = this.#hot.get(key);
    if (hot === undefined) return this.read(op);
    return { satoshis: hot.satoshis, lockingScript: LockingScript.fromBinary(Array.from(hot.script)) };
  }

  /** The coin's amount and script if it is hot (no copy: not to be changed). */
  hot(op: string): { readonly satoshis: bigint; readonly script: Uint8Array } | undefined {
    return this.#hot.get(packOutpoint(op));
  }

  /** A coin created by a block at `height` (kept whole while recent). */
  addHot(op: string, height: number, satoshis: bigint, script: Uint8Array): void {
    const key = packOutpoint(op);
    this.#live.set(key, scriptTag(script));
    this.#hot.set(key, { height, satoshis, script });
  }

  /** A coin that is live again (a reorg took its spender off) or restored from a checkpoint. */
  addCold(op: string, tag: number): void {
    this.#live.set(packOutpoint(op), tag);
  }

  delete(op: string): boolean {
    const key = packOutpoint(op);
    this.#hot.delete(key);
    return this.#live.delete(key);
  }

  /**
   * Lets go of the whole coins of blocks older than HOT_BLOCKS below `tipHeight` (and the oldest
   * beyond HOT_MOST). Only once those blocks are on disk and indexed: the coins are read back.
   */
  cool(tipHeight: number): void {
    for (const [key, coin] of this.#hot) {
      if (coin.height > tipHeight - HOT_BLOCKS && this.#hot.size <= HOT_MOST) break;
      this.#hot.delete(key);
    }
  }

  /** Every live outpoint as `txid:vout` with its script's tag; only those whose tag is `tag` if given. */
  *outpoints(tag?: number): IterableIterator<readonly [string, number]> {
    for (const [key, t] of this.#live) {
      if (tag !== undefined && t !== tag) continue;
      const { txid, vout } = unpackOutpoint(key);
      yield [`${txid}:${vout}`, t];
    }
  }
}

/** A 30-bit FNV-1a hash of a script: a small integer, stored without an allocation. */
export function scriptTag(script: Uint8Array): number {
  let h = 0x811c9dc5;
  for (const byte of script) h = Math.imul(h ^ byte, 0x01000193);
  return h >>> 2;
}
