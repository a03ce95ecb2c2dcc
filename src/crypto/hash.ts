// Hash functions of the ledger, on node:crypto (OpenSSL).
import { createHash } from 'node:crypto';

export function sha256(data: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(data).digest());
}

/** Double SHA-256: sighash digests, txids, block hashes, merkle nodes. */
export function sha256d(data: Uint8Array): Uint8Array {
  return sha256(sha256(data));
}

/** RIPEMD-160 of SHA-256: the pubkey hash of P2PKH and cosign scripts. */
export function hash160(data: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('ripemd160').update(sha256(data)).digest());
}
