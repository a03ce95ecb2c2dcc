// Transaction IDs: the double SHA-256 of the serialized transaction, byte-reversed, in hex
// (node:crypto, instead of @bsv/sdk's pure-JS hash on the hot path).
import { sha256d } from './hash.js';

export function txidOf(raw: Uint8Array): string {
  return Buffer.from(sha256d(raw)).reverse().toString('hex');
}
