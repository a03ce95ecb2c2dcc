// One output of a serialized transaction, read where it lies: a spent coin's parent kept as its
// bytes and the offsets of its outputs, not as a parsed transaction. A pool's split of about a
// thousand outputs parsed by @bsv/sdk held about 400 KB of objects (a Script, its chunks and
// cached bytes an output); as bytes and offsets it holds its own size, about 35 KB.
import { LockingScript } from '@bsv/sdk';
import type { Coin } from './chain-state.js';

/** A transaction's bytes and where each of its outputs starts. */
export interface OutputsOf {
  readonly raw: Uint8Array;
  readonly starts: Uint32Array;
}

/** Reads a Bitcoin varint at `at`: its value and the offset after it. */
function varint(raw: Uint8Array, at: number): [number, number] {
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const first = view.getUint8(at);
  if (first < 0xfd) return [first, at + 1];
  if (first === 0xfd) return [view.getUint16(at + 1, true), at + 3];
  if (first === 0xfe) return [view.getUint32(at + 1, true), at + 5];
  const big = view.getBigUint64(at + 1, true);
  if (big > BigInt(raw.length))
    throw new RangeError(`a count of ${big} in a transaction of ${raw.length} bytes`);
  return [Number(big), at + 9];
}

/**
 * The offsets of a standard serialization's outputs (from the chain's own journal: its shape was
 * checked when it was accepted; a read past its end still throws). `raw` is copied, so that a
 * kept parent does not hold a larger buffer it was cut from.
 */
export function outputsOf(bytes: Uint8Array): OutputsOf {
  const raw = new Uint8Array(bytes);
  let at = 4;
  let count: number;
  [count, at] = varint(raw, at);
  for (let i = 0; i < count; i++) {
    let length: number;
    [length, at] = varint(raw, at + 36);
    at += length + 4;
  }
  [count, at] = varint(raw, at);
  const starts = new Uint32Array(count);
  for (let i = 0; i < count; i++) {
    starts[i] = at;
    let length: number;
    [length, at] = varint(raw, at + 8);
    at += length;
  }
  if (at + 4 !== raw.length) throw new RangeError(`a transaction of ${raw.length} bytes ends at ${at + 4}`);
  return { raw, starts };
}

/** Output `vout`'s amount and locking script, or undefined if there is no such output. */
export function coinAt(parent: OutputsOf, vout: number): Coin | undefined {
  const at = parent.starts[vout];
  if (at === undefined) return undefined;
  const satoshis = new DataView(parent.raw.buffer, parent.raw.byteOffset).getBigUint64(at, true);
  const [length, script] = varint(parent.raw, at + 8);
  return {
    satoshis,
    lockingScript: LockingScript.fromBinary(Array.from(parent.raw.subarray(script, script + length))),
  };
}
