// A bounds-checked walk over serialized bytes for shape checks: every read says whether the
// bytes were there, and counts that cannot fit in any real message read as Infinity. It builds
// nothing from the bytes, so a hostile length cannot make it allocate. Pure.

export class ByteCursor {
  pos: number;

  constructor(
    readonly bytes: Uint8Array,
    start = 0,
  ) {
    this.pos = start;
  }

  get remaining(): number {
    return this.bytes.length - this.pos;
  }

  /** A Bitcoin varint, or null when cut short; values beyond 2^53 read as Infinity. */
  varint(): number | null {
    if (this.pos >= this.bytes.length) return null;
    const first = this.bytes[this.pos]!;
    const width = first < 0xfd ? 1 : first === 0xfd ? 3 : first === 0xfe ? 5 : 9;
    if (width > this.remaining) return null;
    let value = first < 0xfd ? first : 0;
    for (let i = width - 1; i >= 1; i--) value = value * 256 + this.bytes[this.pos + i]!;
    this.pos += width;
    return Number.isSafeInteger(value) ? value : Number.POSITIVE_INFINITY;
  }

  /** One byte, or null when cut short. */
  u8(): number | null {
    if (this.pos >= this.bytes.length) return null;
    return this.bytes[this.pos++]!;
  }

  /** Steps over `count` bytes; false (and no step) when they are not all there. */
  skip(count: number): boolean {
    if (!(count <= this.remaining)) return false;
    this.pos += count;
    return true;
  }

  /** Steps over a varint length and that many bytes; false when cut short. */
  skipVarBytes(): boolean {
    const length = this.varint();
    return length !== null && this.skip(length);
  }
}
