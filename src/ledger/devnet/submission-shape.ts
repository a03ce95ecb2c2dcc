// Shape checks for what ARC's API takes besides a raw transaction: the extended format
// (BRC-30) and BEEF (BRC-62 V1, BRC-96 V2, BRC-95 atomic). @bsv/sdk's readers trust every count
// (and fromEF allocates an array as long as an input's output index), so hostile bytes are
// walked here first, and the extended format is turned into the standard serialization here
// rather than by fromEF. Pure.
import { ByteCursor } from '../../domain/byte-cursor.js';
import { walkTransaction } from '../../domain/tx-shape.js';

export type Shape = { readonly ok: true } | { readonly ok: false; readonly reason: string };

export const BEEF_V1 = 0xefbe0001;
export const BEEF_V2 = 0xefbe0002;
export const ATOMIC_BEEF = 0x01010101;
/** Smallest transaction: version, two empty counts, lock time. */
const MIN_TX_BYTES = 10;
/** Smallest merkle path: height (1), tree height (1). */
const MIN_BUMP_BYTES = 2;
/** Smallest leaf: offset (1), flags (1). */
const MIN_LEAF_BYTES = 2;

/**
 * The standard serialization of an extended-format transaction (the parents' satoshis and
 * scripts dropped), or the reason it is malformed.
 */
export function efToRaw(ef: Uint8Array): { ok: true; raw: Uint8Array } | { ok: false; reason: string } {
  const whole = new ByteCursor(ef);
  const shape = walkTransaction(whole, true);
  if (!shape.ok) return shape;
  if (whole.pos !== ef.length) return { ok: false, reason: 'trailing bytes after the transaction' };
  // Shape checked: a second walk copies each input without its parent's satoshis and script.
  const parts: Uint8Array[] = [ef.subarray(0, 4)];
  const cursor = new ByteCursor(ef, 10);
  let from = cursor.pos;
  cursor.varint();
  for (let i = 0; i < shape.inputs; i++) {
    cursor.skip(36);
    cursor.skipVarBytes();
    cursor.skip(4);
    parts.push(ef.subarray(from, cursor.pos));
    cursor.skip(8);
    cursor.skipVarBytes();
    from = cursor.pos;
  }
  parts.push(ef.subarray(from));
  return { ok: true, raw: new Uint8Array(Buffer.concat(parts)) };
}

/** A whole BEEF (V1, V2 or atomic) whose every count and length fits in its bytes. */
export function checkBeefShape(bytes: Uint8Array): Shape {
  const cursor = new ByteCursor(bytes);
  let version = readU32(cursor);
  if (version === ATOMIC_BEEF) {
    if (!cursor.skip(32)) return { ok: false, reason: 'atomic BEEF txid cut short' };
    version = readU32(cursor);
  }
  if (version !== BEEF_V1 && version !== BEEF_V2) return { ok: false, reason: 'not a BEEF version' };
  const bumps = cursor.varint();
  if (bumps === null || bumps * MIN_BUMP_BYTES > cursor.remaining)
    return { ok: false, reason: 'merkle path count larger than the bytes can hold' };
  for (let i = 0; i < bumps; i++) {
    const bump = walkMerklePath(cursor);
    if (!bump.ok) return { ok: false, reason: `merkle path ${i}: ${bump.reason}` };
  }
  const txs = cursor.varint();
  if (txs === null || txs * MIN_TX_BYTES > cursor.remaining)
    return { ok: false, reason: 'transaction count larger than the bytes can hold' };
  for (let i = 0; i < txs; i++) {
    const tx = version === BEEF_V2 ? walkV2Transaction(cursor) : walkV1Transaction(cursor);
    if (!tx.ok) return { ok: false, reason: `transaction ${i}: ${tx.reason}` };
  }
  if (cursor.remaining !== 0) return { ok: false, reason: 'trailing bytes after the BEEF' };
  return { ok: true };
}

function readU32(cursor: ByteCursor): number | null {
  if (cursor.remaining < 4) return null;
  const value = Buffer.from(cursor.bytes.buffer, cursor.bytes.byteOffset + cursor.pos, 4).readUInt32LE(0);
  cursor.skip(4);
  return value;
}

function walkMerklePath(cursor: ByteCursor): Shape {
  const height = cursor.varint();
  const levels = cursor.u8();
  if (height === null || levels === null) return { ok: false, reason: 'cut short' };
  for (let level = 0; level < levels; level++) {
    const leaves = cursor.varint();
    if (leaves === null || leaves * MIN_LEAF_BYTES > cursor.remaining)
      return { ok: false, reason: `leaf count at level ${level} larger than the bytes can hold` };
    for (let i = 0; i < leaves; i++) {
      const offset = cursor.varint();
      const flags = cursor.u8();
      if (offset === null || flags === null) return { ok: false, reason: 'leaf cut short' };
      if ((flags & 1) === 0 && !cursor.skip(32)) return { ok: false, reason: 'leaf hash cut short' };
    }
  }
  return { ok: true };
}

function walkV1Transaction(cursor: ByteCursor): Shape {
  const tx = walkTransaction(cursor);
  if (!tx.ok) return tx;
  const hasBump = cursor.u8();
  if (hasBump === null) return { ok: false, reason: 'merkle path flag cut short' };
  if (hasBump !== 0 && cursor.varint() === null) return { ok: false, reason: 'merkle path index cut short' };
  return { ok: true };
}

function walkV2Transaction(cursor: ByteCursor): Shape {
  const format = cursor.u8();
  if (format === 2) return cursor.skip(32) ? { ok: true } : { ok: false, reason: 'txid cut short' };
  if (format === 1 && cursor.varint() === null) return { ok: false, reason: 'merkle path index cut short' };
  if (format !== 0 && format !== 1) return { ok: false, reason: 'unknown transaction format' };
  return walkTransaction(cursor);
}
