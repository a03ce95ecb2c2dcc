// Signature hashes (BIP143 with FORKID, as BSV uses) for one input of a transaction.
// The preimage is assembled here with node:crypto hashing (crypto/hash.ts) and per-transaction caching of the
// shared parts (hashPrevouts, hashSequence, hashOutputs); tests hold it byte-equal to
// @bsv/sdk's TransactionSignature.formatBytes for every sighash type.
import type { Script, Transaction } from '@bsv/sdk';
import { sha256d } from './hash.js';

const ANYONECANPAY = 0x80;
const BASE_MASK = 0x1f;
const SINGLE = 0x03;
const NONE = 0x02;
const ZERO32 = new Uint8Array(32);

/** Shared hashes of one transaction state. Make a new one whenever inputs or outputs change. */
export interface SignatureHashCache {
  hashPrevouts?: Uint8Array;
  hashSequence?: Uint8Array;
  hashOutputs?: Uint8Array;
}

/** The 32-byte digest a checksig on input `inputIndex` verifies against. */
export function sighashDigest(
  tx: Transaction,
  inputIndex: number,
  subscript: Script,
  satoshis: bigint,
  scope: number,
  cache: SignatureHashCache = {},
): Uint8Array {
  return sha256d(sighashPreimage(tx, inputIndex, subscript, satoshis, scope, cache));
}

export function sighashPreimage(
  tx: Transaction,
  inputIndex: number,
  subscript: Script,
  satoshis: bigint,
  scope: number,
  cache: SignatureHashCache = {},
): Uint8Array {
  const input = tx.inputs[inputIndex];
  if (input === undefined) throw new RangeError(`input ${inputIndex} does not exist`);
  const base = scope & BASE_MASK;
  const anyoneCanPay = (scope & ANYONECANPAY) !== 0;

  let hashPrevouts: Uint8Array = ZERO32;
  let hashSequence: Uint8Array = ZERO32;
  let hashOutputs: Uint8Array = ZERO32;
  if (!anyoneCanPay) {
    cache.hashPrevouts ??= hashOf(tx.inputs.map((i) => outpointBytes(sourceTxid(i), i.sourceOutputIndex)));
    hashPrevouts = cache.hashPrevouts;
    if (base !== SINGLE && base !== NONE) {
      cache.hashSequence ??= hashOf(tx.inputs.map((i) => u32(i.sequence ?? 0xffffffff)));
      hashSequence = cache.hashSequence;
    }
  }
  if (base !== SINGLE && base !== NONE) {
    cache.hashOutputs ??= hashOf(tx.outputs.flatMap((o) => outputParts(o)));
    hashOutputs = cache.hashOutputs;
  } else if (base === SINGLE && inputIndex < tx.outputs.length) {
    hashOutputs = hashOf(outputParts(tx.outputs[inputIndex]!));
  }

  const script = subscript.toUint8Array();
  return Buffer.concat([
    i32(tx.version),
    hashPrevouts,
    hashSequence,
    outpointBytes(sourceTxid(input), input.sourceOutputIndex),
    varInt(script.length),
    script,
    u64(satoshis),
    u32(input.sequence ?? 0xffffffff),
    hashOutputs,
    u32(tx.lockTime),
    u32(scope >>> 0),
  ]);
}

function sourceTxid(input: Transaction['inputs'][number]): string {
  const txid = input.sourceTXID ?? input.sourceTransaction?.id('hex');
  if (txid === undefined) throw new TypeError('input has no source txid');
  return txid;
}

function hashOf(parts: readonly Uint8Array[]): Uint8Array {
  return sha256d(Buffer.concat(parts));
}

function outputParts(o: Transaction['outputs'][number]): Uint8Array[] {
  const script = o.lockingScript.toUint8Array();
  return [u64(BigInt(o.satoshis ?? 0)), varInt(script.length), script];
}

function outpointBytes(txid: string, vout: number): Uint8Array {
  const bytes = Buffer.alloc(36);
  Buffer.from(txid, 'hex').reverse().copy(bytes, 0);
  bytes.writeUInt32LE(vout, 32);
  return bytes;
}

function u32(n: number): Uint8Array {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
}

function i32(n: number): Uint8Array {
  const b = Buffer.alloc(4);
  b.writeInt32LE(n | 0);
  return b;
}

function u64(n: bigint): Uint8Array {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(n);
  return b;
}

function varInt(n: number): Uint8Array {
  if (n < 0xfd) return Uint8Array.of(n);
  if (n <= 0xffff) return Uint8Array.of(0xfd, n & 0xff, n >> 8);
  const b = Buffer.alloc(5);
  b[0] = 0xfe;
  b.writeUInt32LE(n, 1);
  return b;
}
