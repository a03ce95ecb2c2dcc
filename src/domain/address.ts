// Mainnet addresses. Only P2PKH addresses can own token outputs (the cosign script locks to an
// owner public key hash); P2SH and bech32 addresses are recognised as valid so that a query
// naming one gets an empty answer rather than a 400, but they can own nothing here.

import { base58CheckDecode, base58CheckEncode } from './base58.js';
import { decodeSegwitAddress } from './bech32.js';

export const P2PKH_VERSION = 0x00;
export const P2SH_VERSION = 0x05;
const HASH_LENGTH = 20;
const SEGWIT_HRP = 'bc';

export type ParsedAddress =
  | { readonly kind: 'p2pkh'; readonly hash: Uint8Array }
  | { readonly kind: 'p2sh'; readonly hash: Uint8Array }
  /** A `bc1` address with a valid bech32/bech32m checksum and segwit layout, in lower case. */
  | { readonly kind: 'bech32'; readonly text: string };

/**
 * Parses a mainnet address: Base58Check with version 0x00 (P2PKH) or 0x05 (P2SH) and a 20-byte
 * hash, checksum verified; or a segwit `bc1` address, checksum verified. Anything else: null.
 */
export function parseAddress(text: string): ParsedAddress | null {
  const lower = text.toLowerCase();
  if (lower.startsWith(`${SEGWIT_HRP}1`)) {
    return decodeSegwitAddress(text, SEGWIT_HRP) === null ? null : { kind: 'bech32', text: lower };
  }
  const decoded = base58CheckDecode(text);
  if (decoded === null || decoded.payload.length !== HASH_LENGTH) return null;
  if (decoded.version === P2PKH_VERSION) return { kind: 'p2pkh', hash: decoded.payload };
  if (decoded.version === P2SH_VERSION) return { kind: 'p2sh', hash: decoded.payload };
  return null;
}

/** True for any mainnet address parseAddress accepts (P2PKH, P2SH or bech32). */
export function isValidAddress(text: string): boolean {
  if (recentlyValid.has(text)) return true;
  const valid = parseAddress(text) !== null;
  if (valid) {
    if (recentlyValid.size >= RECENT_ADDRESSES_MAX) recentlyValid.clear();
    recentlyValid.add(text);
  }
  return valid;
}

/** Addresses already checked valid: wallets ask about the same ones again and again (bounded). */
const recentlyValid = new Set<string>();

/**
 * The P2PKH address of a 20-byte public key hash.
 * @throws RangeError when the hash is not 20 bytes.
 */
export function p2pkhAddress(pubKeyHash: Uint8Array): string {
  if (pubKeyHash.length !== HASH_LENGTH) {
    throw new RangeError(`A public key hash has ${HASH_LENGTH} bytes, got ${pubKeyHash.length}`);
  }
  const key = Buffer.from(pubKeyHash.buffer, pubKeyHash.byteOffset, pubKeyHash.byteLength).toString('hex');
  let address = recentAddresses.get(key);
  if (address === undefined) {
    address = base58CheckEncode(P2PKH_VERSION, pubKeyHash);
    if (recentAddresses.size >= RECENT_ADDRESSES_MAX) recentAddresses.clear();
    recentAddresses.set(key, address);
  }
  return address;
}

/** Base58Check is quadratic work; the same owners recur on the hot path (a pure memo, bounded). */
const RECENT_ADDRESSES_MAX = 10_000;
const recentAddresses = new Map<string, string>();

/** The public key hash of a P2PKH address; null for any other address or invalid text. */
export function pubKeyHashOf(address: string): Uint8Array | null {
  let hash = recentHashes.get(address);
  if (hash === undefined) {
    const parsed = parseAddress(address);
    if (parsed?.kind !== 'p2pkh') return null;
    hash = parsed.hash;
    if (recentHashes.size >= RECENT_ADDRESSES_MAX) recentHashes.clear();
    recentHashes.set(address, hash);
  }
  // A copy: the memo's own bytes are never handed out.
  return hash.slice();
}

/**
 * Decoding Base58Check is quadratic work too (about 15 us an address here), asked again for
 * every input a transfer spends: the P2PKH addresses decoded lately, by their text (a pure
 * memo, bounded).
 */
const recentHashes = new Map<string, Uint8Array>();
