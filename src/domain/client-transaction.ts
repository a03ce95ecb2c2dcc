// A raw transaction as the reference client holds it: decoded strictly here (a well-formed
// transaction, canonical varints, nothing after nLockTime), scripts split into the client's
// chunks, and re-encoded the way @bsv/sdk 1.3.30 does (`Transaction.toBinary`), which is what
// the client hashes for its txid and prints as hex. For any script that parses cleanly the
// re-encoding is the original bytes; only a push running past the end of a script differs.
// Pure.

import { sha256d } from '../crypto/hash.js';
import { type ClientChunk, clientChunks, clientScriptBytes } from './client-script-reading.js';
import { DomainError } from './domain-error.js';
import { toHex } from './script-chunks.js';

export interface ClientTxInput {
  /** Display-order hex of the spent transaction's ID. */
  readonly sourceTxid: string;
  readonly sourceVout: number;
  readonly unlockingScript: readonly ClientChunk[];
  readonly sequence: number;
}

export interface ClientTxOutput {
  readonly satoshis: bigint;
  readonly lockingScript: readonly ClientChunk[];
  /** The locking script's bytes as they are in the transaction. */
  readonly lockingScriptBytes: Uint8Array;
}

export interface ClientTransaction {
  readonly version: number;
  readonly inputs: readonly ClientTxInput[];
  readonly outputs: readonly ClientTxOutput[];
  readonly lockTime: number;
  /** The client's re-encoding of the transaction. */
  readonly bytes: Uint8Array;
  /** The client's `tx.id('hex')`: double SHA-256 of `bytes`, byte-reversed. */
  readonly txid: string;
}

/** The client reads satoshis with BigNumber.toNumber, which throws from 2^53 up. */
const MAX_CLIENT_SATOSHIS = 2n ** 53n - 1n;

/**
 * Decodes a raw transaction.
 * @throws DomainError INVALID_TX when the bytes are not exactly one well-formed transaction, or
 *   carry an output value the client cannot read (2^53 satoshis or more).
 */
export function readClientTransaction(raw: Uint8Array): ClientTransaction {
  const reader = new StrictReader(raw);
  const version = reader.u32();
  const inputs: ClientTxInput[] = [];
  for (let i = reader.varint(); i > 0; i--) {
    const sourceTxid = toHex(reader.bytes(32).reverse());
    const sourceVout = reader.u32();
    const unlockingScript = clientChunks(reader.bytes(reader.varint()));
    const sequence = reader.u32();
    inputs.push({ sourceTxid, sourceVout, unlockingScript, sequence });
  }
  const outputs: ClientTxOutput[] = [];
  for (let i = reader.varint(); i > 0; i--) {
    const satoshis = reader.u64();
    if (satoshis > MAX_CLIENT_SATOSHIS) throw invalid(`output value ${satoshis} is beyond 2^53-1`);
    const lockingScriptBytes = reader.bytes(reader.varint());
    outputs.push({ satoshis, lockingScript: clientChunks(lockingScriptBytes), lockingScriptBytes });
  }
  const lockTime = reader.u32();
  if (!reader.atEnd()) throw invalid('bytes after nLockTime');
  const bytes = encodeClientTransaction(version, inputs, outputs, lockTime);
  return { version, inputs, outputs, lockTime, bytes, txid: toHex(sha256d(bytes).reverse()) };
}

function encodeClientTransaction(
  version: number,
  inputs: readonly ClientTxInput[],
  outputs: readonly ClientTxOutput[],
  lockTime: number,
): Uint8Array {
  const w = new Writer();
  w.u32(version);
  w.varint(inputs.length);
  for (const input of inputs) {
    w.raw(Uint8Array.from(Buffer.from(input.sourceTxid, 'hex')).reverse());
    w.u32(input.sourceVout);
    w.script(clientScriptBytes(input.unlockingScript));
    w.u32(input.sequence);
  }
  w.varint(outputs.length);
  for (const output of outputs) {
    w.u64(output.satoshis);
    w.script(clientScriptBytes(output.lockingScript));
  }
  w.u32(lockTime);
  return w.done();
}

function invalid(detail: string): DomainError {
  return new DomainError('INVALID_TX', `transaction does not parse: ${detail}`);
}

class StrictReader {
  private pos = 0;
  constructor(private readonly buf: Uint8Array) {}

  atEnd(): boolean {
    return this.pos === this.buf.length;
  }

  bytes(n: number): Uint8Array {
    if (n > this.buf.length - this.pos) throw invalid(`truncated at byte ${this.pos}`);
    const out = this.buf.slice(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  u32(): number {
    const b = this.bytes(4);
    return (b[0]! | (b[1]! << 8) | (b[2]! << 16) | (b[3]! << 24)) >>> 0;
  }

  u64(): bigint {
    const b = this.bytes(8);
    let v = 0n;
    for (let i = 7; i >= 0; i--) v = (v << 8n) | BigInt(b[i]!);
    return v;
  }

  varint(): number {
    const first = this.bytes(1)[0]!;
    if (first < 0xfd) return first;
    const size = first === 0xfd ? 2 : first === 0xfe ? 4 : 8;
    const b = this.bytes(size);
    let v = 0n;
    for (let i = size - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[i]!);
    const min = size === 2 ? 0xfdn : size === 4 ? 0x10000n : 0x100000000n;
    if (v < min) throw invalid(`non-canonical varint at byte ${this.pos - size - 1}`);
    if (v > BigInt(this.buf.length)) throw invalid(`count ${v} exceeds the transaction size`);
    return Number(v);
  }
}

class Writer {
  private readonly parts: number[] = [];

  raw(bytes: Uint8Array): void {
    for (const b of bytes) this.parts.push(b);
  }

  u32(v: number): void {
    this.parts.push(v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, (v >>> 24) & 0xff);
  }

  u64(v: bigint): void {
    for (let i = 0n; i < 8n; i++) this.parts.push(Number((v >> (8n * i)) & 0xffn));
  }

  varint(n: number): void {
    if (n < 0xfd) this.parts.push(n);
    else if (n <= 0xffff) this.parts.push(0xfd, n & 0xff, n >>> 8);
    else if (n <= 0xffffffff) {
      this.parts.push(0xfe);
      this.u32(n);
    } else {
      this.parts.push(0xff);
      this.u64(BigInt(n));
    }
  }

  script(bytes: Uint8Array): void {
    this.varint(bytes.length);
    this.raw(bytes);
  }

  done(): Uint8Array {
    return Uint8Array.from(this.parts);
  }
}
