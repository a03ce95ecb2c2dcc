// Hash functions of the ledger, on node:crypto (OpenSSL) through its one-shot `hash`: for inputs
// of a few hundred bytes (sighash preimages, txids, merkle pairs) it costs about half of a
// createHash().update().digest() chain. Results are plain Uint8Array views of the digest (no copy).
import { hash } from 'node:crypto';

const view = (digest: Buffer): Uint8Array => new Uint8Array(digest.buffer, digest.byteOffset, digest.length);

export function sha256(data: Uint8Array): Uint8Array {
  return view(hash('sha256', data, 'buffer'));
}

/** Double SHA-256: sighash digests, txids, block hashes, merkle nodes. */
export function sha256d(data: Uint8Array): Uint8Array {
  return view(hash('sha256', hash('sha256', data, 'buffer'), 'buffer'));
}

/** RIPEMD-160 of SHA-256: the pubkey hash of P2PKH and cosign scripts. */
export function hash160(data: Uint8Array): Uint8Array {
  return view(hash('ripemd160', hash('sha256', data, 'buffer'), 'buffer'));
}
