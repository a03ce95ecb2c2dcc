// The devnet's UTXO set of confirmed outputs (ADR 0017). Memory holds each live outpoint as a
// packed key (the txid's 32 bytes as a one-byte string, then the output index) with a 30-bit tag
// of its script, so that a listing of the outputs locked by one script reads only those back:
// about 90 bytes a coin with the map's slot. The coins of the last HOT_BLOCKS blocks are kept
// whole, since those are what the next transactions spend: their amounts and scripts appended to
// a chunk of bytes a block (no object a coin), let go a block at a time; any other coin's amount and script
// are read back from its transaction on disk (the index and the journal) when asked for. The set
// still grows with the outputs nobody spends (a fee address's, say), as a real ledger's does.
import { LockingScript } from '@bsv/sdk';
import type { Coin } from './chain-state.js';

/** Blocks whose new coins stay in memory whole. */
export const HOT_BLOCKS = 16;
/** At most this many coins in memory whole, whatever the blocks hold. */
export const HOT_MOST = 20_000;

/** A block's chunk of the arena starts this small and doubles as its coins fill it. */
const CHUNK_START = 4 * 1024;
/** Offsets past this start a further chunk of the same block (a place holds offset / 4 in 16 bits). */
const CHUNK_MOST = 256 * 1024;
/** A hot coin's place is `chunk number (mod SEQ_SPAN) * 65,536 + offset / 4`: a small integer. A
 * coin starts below CHUNK_MOST in its chunk, so its offset / 4 fits in 16 bits. */
const SEQ_SPAN = 1 << 14;
const PLACE_STEP = 1 << 16;
/** Amount (8 bytes), script length (4), then the script, padded to 4. */
const ENTRY_HEAD = 12;

interface Chunk {
  readonly seq: number;
  bytes: Uint8Array;
  view: DataView;
  used: number;
  /** The height of the block whose coins it holds. */
  readonly height: number;
  /** The keys of the coins written into it (the same strings as the live set's keys). */
  readonly keys: string[];
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
  /** Packed outpoint of a coin created in a recent block -> its place in the arena. */
  readonly #hot = new Map<string, number>();
  /** The arena, oldest chunk first (coins are added in height order). */
  readonly #chunks: Chunk[] = [];
  #nextSeq = 0;

  /** `read(op)`: a confirmed coin's amount and script from disk, for one that is not hot. */
  constructor(private readonly read: (op: string) => Coin) {}

  get size(): number {
    return this.#live.size;
  }

  get hotSize(): number {
    return this.#hot.size;
  }

  /** Bytes the arena of whole coins holds (spent coins included until their chunk goes). */
  get hotBytes(): number {
    return this.#chunks.reduce((sum, c) => sum + c.bytes.byteLength, 0);
  }

  has(op: string): boolean {
    return this.#live.has(packOutpoint(op));
  }

  /** The coin, if it is live: from memory when hot, else read back from its transaction. */
  get(op: string): Coin | undefined {
    const key = packOutpoint(op);
    if (!this.#live.has(key)) return undefined;
    const hot = this.#read(key);
    if (hot === undefined) return this.read(op);
    return { satoshis: hot.satoshis, lockingScript: LockingScript.fromBinary(Array.from(hot.script)) };
  }

  /** The coin's amount and script if it is hot (a view of the arena: not to be changed or kept). */
  hot(op: string): { readonly satoshis: bigint; readonly script: Uint8Array } | undefined {
    return this.#read(packOutpoint(op));
  }

  /** A coin created by a block at `height` (kept whole while recent; `script` is copied). */
  addHot(op: string, height: number, satoshis: bigint, script: Uint8Array): void {
    const key = packOutpoint(op);
    this.#live.set(key, scriptTag(script));
    const size = (ENTRY_HEAD + script.length + 3) & ~3;
    let chunk = this.#chunks.at(-1);
    if (chunk === undefined || chunk.height !== height || chunk.used >= CHUNK_MOST)
      chunk = this.#newChunk(height);
    if (chunk.used + size > chunk.bytes.length) grow(chunk, chunk.used + size);
    const at = chunk.used;
    chunk.view.setBigUint64(at, satoshis, true);
    chunk.view.setUint32(at + 8, script.length, true);
    chunk.bytes.set(script, at + ENTRY_HEAD);
    chunk.used += size;
    chunk.keys.push(key);
    this.#hot.set(key, chunk.seq * PLACE_STEP + at / 4);
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
   * block's while more than HOT_MOST coins are hot). Only once those blocks are on disk and
   * indexed: the coins are read back.
   */
  cool(tipHeight: number): void {
    while (this.#chunks.length > 0) {
      const oldest = this.#chunks[0]!;
      if (oldest.height > tipHeight - HOT_BLOCKS && this.#hot.size <= HOT_MOST) break;
      this.#chunks.shift();
      for (const key of oldest.keys) {
        const place = this.#hot.get(key);
        // A coin added again since (a reorg's block connected anew) lives in a later chunk.
        if (place !== undefined && Math.floor(place / PLACE_STEP) === oldest.seq) this.#hot.delete(key);
      }
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

  #newChunk(height: number): Chunk {
    const bytes = new Uint8Array(CHUNK_START);
    const chunk: Chunk = {
      seq: this.#nextSeq,
      bytes,
      view: new DataView(bytes.buffer),
      used: 0,
      height,
      keys: [],
    };
    // Chunks live for HOT_BLOCKS blocks: far fewer than SEQ_SPAN are ever held at once.
    this.#nextSeq = (this.#nextSeq + 1) % SEQ_SPAN;
    this.#chunks.push(chunk);
    return chunk;
  }

  #read(key: string): { readonly satoshis: bigint; readonly script: Uint8Array } | undefined {
    const place = this.#hot.get(key);
    if (place === undefined) return undefined;
    const seq = Math.floor(place / PLACE_STEP);
    const at = (place % PLACE_STEP) * 4;
    const first = this.#chunks[0]!.seq;
    const chunk = this.#chunks[(seq - first + SEQ_SPAN) % SEQ_SPAN]!;
    const length = chunk.view.getUint32(at + 8, true);
    return {
      satoshis: chunk.view.getBigUint64(at, true),
      script: chunk.bytes.subarray(at + ENTRY_HEAD, at + ENTRY_HEAD + length),
    };
  }
}

/** Doubles a chunk's bytes until `need` fit: the coins' offsets, and so their places, stay. */
function grow(chunk: Chunk, need: number): void {
  let length = chunk.bytes.length * 2;
  while (length < need) length *= 2;
  const bytes = new Uint8Array(length);
  bytes.set(chunk.bytes.subarray(0, chunk.used));
  chunk.bytes = bytes;
  chunk.view = new DataView(bytes.buffer);
}

/** A 30-bit FNV-1a hash of a script: a small integer, stored without an allocation. */
export function scriptTag(script: Uint8Array): number {
  let h = 0x811c9dc5;
  for (const byte of script) h = Math.imul(h ^ byte, 0x01000193);
  return h >>> 2;
}
