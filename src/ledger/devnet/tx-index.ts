// Where the devnet finds a mined transaction, and who spent an output in the chain, without
// keeping the history in memory: `devnet.index`, an open-addressing hash table on disk (linear
// probing, 48-byte slots, at most half full, doubled by rehashing when it gets there). Keys are
// the first 16 bytes of a txid, or of SHA-256 of an outpoint `txid:vout`; a lookup reads one
// run of slots (one pread, from the page cache once warm). Entries are written when a block is
// connected and never deleted: each carries a tag of its block's hash, and an entry whose block
// is no longer the chain's block at that height (a reorg disconnected it) is ignored by the
// chain. A devnet without a data folder keeps the same entries in a Map.
import {
  closeSync,
  existsSync,
  fdatasyncSync,
  ftruncateSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { sha256 } from '../../crypto/hash.js';

/** A mined transaction: its block (height, hash tag), its index in the block, its journal line. */
export interface TxSlot {
  readonly height: number;
  readonly index: number;
  readonly tag: number;
  readonly offset: number;
  readonly length: number;
}

/** The transaction that spent an output: its block and its index in the block. */
export interface SpendSlot {
  readonly height: number;
  readonly index: number;
  readonly tag: number;
}

export interface TxIndex {
  getTx(txid: string): TxSlot | undefined;
  getSpend(op: string): SpendSlot | undefined;
  putTx(txid: string, slot: TxSlot): void;
  putSpend(op: string, slot: SpendSlot): void;
  /** Entries held (an entry rewritten counts once). */
  readonly count: number;
  /** Makes what was written durable (before a checkpoint that counts on it). */
  sync(): void;
  close(): void;
}

/** 48 bits of a block hash (display hex): enough to tell two blocks at one height apart. */
export const hashTag = (blockHash: string): number => Number.parseInt(blockHash.slice(0, 12), 16);

export function memoryTxIndex(): TxIndex {
  const txs = new Map<string, TxSlot>();
  const spends = new Map<string, SpendSlot>();
  return {
    getTx: (txid) => txs.get(txid),
    getSpend: (op) => spends.get(op),
    putTx: (txid, slot) => void txs.set(txid, slot),
    putSpend: (op, slot) => void spends.set(op, slot),
    get count() {
      return txs.size + spends.size;
    },
    sync() {},
    close() {},
  };
}

const MAGIC = Buffer.from('TPDEVIX1', 'ascii');
const HEADER = 64;
const SLOT = 48;
/** Slots read at once: at most half full, a key is found within a few slots of its home. */
const PROBE = 8;
const INITIAL_CAPACITY = 1 << 14;
/** Slots of the new table a grow builds in memory at once (3 MiB). */
const GROW_REGION = 1 << 16;
const TX = 1;
const SPEND = 2;

const txKey = (txid: string): Buffer => Buffer.from(txid.slice(0, 32), 'hex');
const spendKey = (op: string): Buffer => Buffer.from(sha256(Buffer.from(op, 'utf8')).subarray(0, 16));

/** Opens `path` (a new, empty table when `fresh`, missing or unreadable). */
export function openTxIndex(path: string, fresh: boolean): TxIndex {
  if (!fresh && existsSync(path)) {
    const fd = openSync(path, 'r+');
    const head = Buffer.alloc(HEADER);
    if (readSync(fd, head, 0, HEADER, 0) === HEADER && head.subarray(0, 8).equals(MAGIC)) {
      return new DiskTxIndex(path, fd, head.readUInt32LE(8), head.readUInt32LE(12));
    }
    closeSync(fd);
  }
  return DiskTxIndex.create(path, INITIAL_CAPACITY);
}

class DiskTxIndex implements TxIndex {
  static create(path: string, capacity: number): DiskTxIndex {
    rmSync(path, { force: true });
    const fd = openSync(path, 'w+');
    ftruncateSync(fd, HEADER + capacity * SLOT);
    const index = new DiskTxIndex(path, fd, capacity, 0);
    index.writeHeader();
    return index;
  }

  /** The run of slots a lookup reads (one lookup at a time: everything here is synchronous). */
  private readonly run = Buffer.alloc(PROBE * SLOT);

  constructor(
    private readonly path: string,
    private fd: number,
    private capacity: number,
    private entries: number,
  ) {}

  get count(): number {
    return this.entries;
  }

  getTx(txid: string): TxSlot | undefined {
    const hit = this.find(txKey(txid), TX).hit;
    if (hit === null) return undefined;
    return {
      height: hit.readUInt32LE(20),
      index: hit.readUInt32LE(24),
      tag: hit.readUIntLE(28, 6),
      offset: hit.readUIntLE(34, 6),
      length: hit.readUInt32LE(40),
    };
  }

  getSpend(op: string): SpendSlot | undefined {
    const hit = this.find(spendKey(op), SPEND).hit;
    if (hit === null) return undefined;
    return { height: hit.readUInt32LE(20), index: hit.readUInt32LE(24), tag: hit.readUIntLE(28, 6) };
  }

  putTx(txid: string, slot: TxSlot): void {
    const entry = this.entry(txKey(txid), TX, slot);
    entry.writeUIntLE(slot.offset, 34, 6);
    entry.writeUInt32LE(slot.length, 40);
    this.put(entry);
  }

  putSpend(op: string, slot: SpendSlot): void {
    this.put(this.entry(spendKey(op), SPEND, slot));
  }

  sync(): void {
    this.writeHeader();
    fdatasyncSync(this.fd);
  }

  close(): void {
    this.writeHeader();
    closeSync(this.fd);
  }

  private entry(key: Buffer, kind: number, slot: SpendSlot): Buffer {
    const entry = Buffer.alloc(SLOT);
    key.copy(entry, 0, 0, 16);
    entry[16] = kind;
    entry.writeUInt32LE(slot.height, 20);
    entry.writeUInt32LE(slot.index, 24);
    entry.writeUIntLE(slot.tag, 28, 6);
    return entry;
  }

  private put(entry: Buffer): void {
    const { slot, hit } = this.find(entry, entry[16]!);
    writeSync(this.fd, entry, 0, SLOT, HEADER + slot * SLOT);
    if (hit !== null) return;
    this.entries++;
    if (this.entries * 2 > this.capacity) this.grow();
  }

  /** The slot holding `key` of `kind` (valid until the next lookup), or the empty slot where it would go. */
  private find(key: Buffer, kind: number): { slot: number; hit: Buffer | null } {
    const mask = this.capacity - 1;
    let slot = key.readUInt32LE(0) & mask;
    for (;;) {
      const n = Math.min(PROBE, this.capacity - slot);
      const run = this.run;
      readSync(this.fd, run, 0, n * SLOT, HEADER + slot * SLOT);
      for (let i = 0; i < n; i++) {
        const at = i * SLOT;
        if (run[at + 16] === 0) return { slot: slot + i, hit: null };
        if (run[at + 16] === kind && run.compare(key, 0, 16, at, at + 16) === 0) {
          return { slot: slot + i, hit: run.subarray(at, at + SLOT) };
        }
      }
      slot = (slot + n) & mask;
    }
  }

  /**
   * Twice the slots: every entry rehashed into a new file, which then replaces this one. The new
   * table is built a region of slots at a time in memory and written with one write per region:
   * an entry's new home is its old home or that plus the old capacity, so the entries of a new
   * region are the old region's (and the entries displaced past it, up to an empty slot).
   * Entries displaced past a new region's end go into the next one; past the table's end, they
   * are put one by one at the end (at most half full, there are few).
   */
  private grow(): void {
    const oldCapacity = this.capacity;
    const capacity = oldCapacity * 2;
    const next = DiskTxIndex.create(`${this.path}.grow`, capacity);
    const region = Math.min(GROW_REGION, oldCapacity);
    const built = Buffer.alloc(region * SLOT);
    let carried: Buffer[] = [];
    for (let first = 0; first < capacity; first += region) {
      built.fill(0);
      const spilled: Buffer[] = [];
      const place = (entry: Buffer) => {
        let at = Math.max((entry.readUInt32LE(0) & (capacity - 1)) - first, 0);
        while (at < region && built[at * SLOT + 16] !== 0) at++;
        if (at < region) entry.copy(built, at * SLOT);
        else spilled.push(entry);
      };
      for (const entry of carried) place(entry);
      const old = this.readRun(first % oldCapacity, region);
      for (let i = 0; i * SLOT < old.length; i++) {
        if (old[i * SLOT + 16] === 0) continue;
        const entry = old.subarray(i * SLOT, (i + 1) * SLOT);
        const home = entry.readUInt32LE(0) & (capacity - 1);
        if (home >= first && home < first + region) place(Buffer.from(entry));
      }
      writeSync(next.fd, built, 0, built.length, HEADER + first * SLOT);
      carried = spilled;
    }
    for (const entry of carried) next.put(entry);
    next.entries = this.entries;
    next.sync();
    closeSync(this.fd);
    renameSync(next.path, this.path);
    this.fd = next.fd;
    this.capacity = next.capacity;
  }

  /** `n` slots from `slot` on, then on to an empty slot: where the probe runs reaching past them end. */
  private readRun(slot: number, n: number): Buffer {
    const parts = [this.readSlots(slot, n)];
    for (let at = (slot + n) % this.capacity; ; at = (at + PROBE) % this.capacity) {
      const more = this.readSlots(at, PROBE);
      parts.push(more);
      if (hasEmpty(more)) return Buffer.concat(parts);
    }
  }

  /** `n` slots from `slot` on, wrapping at the end of the table. */
  private readSlots(slot: number, n: number): Buffer {
    const run = Buffer.alloc(n * SLOT);
    const first = Math.min(n, this.capacity - slot);
    readSync(this.fd, run, 0, first * SLOT, HEADER + slot * SLOT);
    if (first < n) readSync(this.fd, run, first * SLOT, (n - first) * SLOT, HEADER);
    return run;
  }

  private writeHeader(): void {
    const head = Buffer.alloc(HEADER);
    MAGIC.copy(head, 0);
    head.writeUInt32LE(this.capacity, 8);
    head.writeUInt32LE(this.entries, 12);
    writeSync(this.fd, head, 0, HEADER, 0);
  }
}

function hasEmpty(run: Buffer): boolean {
  for (let at = 16; at < run.length; at += SLOT) if (run[at] === 0) return true;
  return false;
}
