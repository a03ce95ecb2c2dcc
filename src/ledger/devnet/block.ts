// Blocks of the devnet: coinbase transactions and 80-byte headers, by Bitcoin's layout.
// No proof of work: the bits are regtest's easiest target and the nonce stays 0.
import { sha256d } from './hashing.js';
import { varInt } from './merkle.js';

export const BLOCK_VERSION = 0x20000000;
export const REGTEST_BITS = 0x207fffff;
export const ZERO_HASH = new Uint8Array(32);

export interface HeaderFields {
  readonly prevHash: Uint8Array; // internal byte order
  readonly merkleRoot: Uint8Array; // internal byte order
  /** Unix seconds. */
  readonly time: number;
}

export function encodeHeader(fields: HeaderFields): Uint8Array {
  const header = Buffer.alloc(80);
  header.writeInt32LE(BLOCK_VERSION, 0);
  header.set(fields.prevHash, 4);
  header.set(fields.merkleRoot, 36);
  header.writeUInt32LE(fields.time >>> 0, 68);
  header.writeUInt32LE(REGTEST_BITS, 72);
  header.writeUInt32LE(0, 76);
  return new Uint8Array(header);
}

/** Block hash, internal byte order. */
export function headerHash(header: Uint8Array): Uint8Array {
  return sha256d(header);
}

export interface CoinbaseOutput {
  readonly lockingScript: Uint8Array;
  readonly satoshis: bigint;
}

/** `OP_FALSE OP_RETURN "tokenproxy devnet"`: where the fees of a block go (unspendable). */
export const MINER_SCRIPT = new Uint8Array([0x00, 0x6a, 17, ...Buffer.from('tokenproxy devnet', 'ascii')]);

/**
 * A coinbase: one input spending nothing (null outpoint), whose script carries the height
 * (BIP34), the block's serial number (so a block re-mined at the same height after a reorg
 * gets another coinbase, hence another hash) and a tag.
 */
export function buildCoinbase(
  height: number,
  serial: number,
  outputs: readonly CoinbaseOutput[],
): Uint8Array {
  const serialBytes = Buffer.alloc(4);
  serialBytes.writeUInt32LE(serial >>> 0);
  const scriptSig = Buffer.concat([
    pushData(scriptNumber(height)),
    pushData(serialBytes),
    pushData(Buffer.from('tokenproxy devnet', 'ascii')),
  ]);
  const parts: Buffer[] = [
    u32(1),
    varInt(1),
    Buffer.alloc(32),
    u32(0xffffffff),
    varInt(scriptSig.length),
    scriptSig,
    u32(0xffffffff),
    varInt(outputs.length),
  ];
  for (const out of outputs) {
    const value = Buffer.alloc(8);
    value.writeBigUInt64LE(out.satoshis);
    parts.push(value, varInt(out.lockingScript.length), Buffer.from(out.lockingScript));
  }
  parts.push(u32(0));
  return new Uint8Array(Buffer.concat(parts));
}

/** True for outputs nobody can spend (`OP_RETURN ...` or `OP_FALSE OP_RETURN ...`): kept out of the UTXO set. */
export function isUnspendable(lockingScript: Uint8Array): boolean {
  return lockingScript[0] === 0x6a || (lockingScript[0] === 0x00 && lockingScript[1] === 0x6a);
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
}

/** Minimal script-number encoding of a non-negative integer. */
function scriptNumber(n: number): Buffer {
  const bytes: number[] = [];
  let rest = n;
  while (rest > 0) {
    bytes.push(rest & 0xff);
    rest = Math.floor(rest / 256);
  }
  if (bytes.length > 0 && (bytes[bytes.length - 1]! & 0x80) !== 0) bytes.push(0);
  return Buffer.from(bytes);
}

function pushData(data: Buffer): Buffer {
  if (data.length === 0) return Buffer.from([0x00]);
  if (data.length > 75) throw new RangeError('push too long for a coinbase script');
  return Buffer.concat([Buffer.from([data.length]), data]);
}
