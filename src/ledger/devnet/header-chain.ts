// The chain's headers, the one thing kept per block: packed in one buffer, 136 bytes a block
// (the 80-byte header, the hash, the coinbase's serial, the journal line of the block's entry,
// its fees), read out as a `HeaderRecord` when asked for.
import type { LinePos } from './journal.js';

export interface HeaderRecord {
  readonly height: number;
  /** Display hex. */
  readonly hash: string;
  /** `hashTag(hash)`: what index entries of this block carry. */
  readonly tag: number;
  readonly header: Uint8Array;
  /** Unix seconds. */
  readonly time: number;
  readonly serial: number;
  /** The journal line holding the block's entry (a `block`, or the `batch` of a reorg). */
  readonly pos: LinePos;
  /** What its transactions paid in fees (the miner output of its coinbase). */
  readonly fees: bigint;
}

const RECORD = 136;
const HASH = 80; // display order
const SERIAL = 112;
const POS_OFFSET = 116; // 6 bytes, the offset + 1 (0: not written yet)
const POS_LENGTH = 122;
const FEES = 126;

export class HeaderChain {
  private bytes = Buffer.alloc(RECORD * 256);
  private count = 0;
  /** The tip's record, asked for by every broadcast (the next block's height and time). */
  private tipRecord: HeaderRecord | undefined;

  get length(): number {
    return this.count;
  }

  get tip(): HeaderRecord | undefined {
    this.tipRecord ??= this.at(this.count - 1);
    return this.tipRecord;
  }

  at(height: number): HeaderRecord | undefined {
    if (!Number.isSafeInteger(height) || height < 0 || height >= this.count) return undefined;
    const r = this.bytes.subarray(height * RECORD, (height + 1) * RECORD);
    return {
      height,
      hash: r.toString('hex', HASH, HASH + 32),
      tag: r.readUIntBE(HASH, 6),
      header: Uint8Array.from(r.subarray(0, 80)),
      time: r.readUInt32LE(68),
      serial: r.readUInt32LE(SERIAL),
      pos: { offset: r.readUIntLE(POS_OFFSET, 6) - 1, length: r.readUInt32LE(POS_LENGTH) },
      fees: r.readBigUInt64LE(FEES),
    };
  }

  /** The block's 48-bit hash tag, without making a record. */
  tagAt(height: number): number | undefined {
    return height >= 0 && height < this.count ? this.bytes.readUIntBE(height * RECORD + HASH, 6) : undefined;
  }

  push(h: Omit<HeaderRecord, 'height' | 'tag' | 'time'>): void {
    if ((this.count + 1) * RECORD > this.bytes.length) {
      const grown = Buffer.alloc(this.bytes.length * 2);
      this.bytes.copy(grown);
      this.bytes = grown;
    }
    const at = this.count * RECORD;
    this.bytes.set(h.header, at);
    this.bytes.write(h.hash, at + HASH, 'hex');
    this.bytes.writeUInt32LE(h.serial, at + SERIAL);
    this.bytes.writeBigUInt64LE(h.fees, at + FEES);
    this.count++;
    this.setPos(this.count - 1, h.pos);
  }

  /** Where the block's entry is, once the journal has it (a reorg's batch is appended last). */
  setPos(height: number, pos: LinePos): void {
    const at = height * RECORD;
    this.bytes.writeUIntLE(pos.offset + 1, at + POS_OFFSET, 6);
    this.bytes.writeUInt32LE(pos.length, at + POS_LENGTH);
    this.tipRecord = undefined;
  }

  pop(): void {
    if (this.count > 0) this.count--;
    this.tipRecord = undefined;
  }
}
