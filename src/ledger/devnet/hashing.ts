// Hashes of the devnet's chain: double SHA-256 (txids, merkle nodes, block hashes) from the
// crypto module (node:crypto), and the byte-order conversions between a hash (internal order)
// and its hex (display order).
import { sha256d } from '../../crypto/hash.js';

export { sha256d };

/** Display-order hex of an internal-order hash (txid, block hash). */
export function hashToHex(hash: Uint8Array): string {
  return Buffer.from(hash).reverse().toString('hex');
}

/** Internal-order bytes of a display-order hex hash. */
export function hexToHash(hex: string): Uint8Array {
  return new Uint8Array(Buffer.from(hex, 'hex').reverse());
}

/** The txid (display-order hex) of raw transaction bytes. */
export function txidOf(raw: Uint8Array): string {
  return hashToHex(sha256d(raw));
}

export const TXID_PATTERN = /^[0-9a-f]{64}$/;
