// Encoding rules the network enforces on checksig operands (Bitcoin SV's interpreter with
// SCRIPT_VERIFY_STRICTENC | DERSIG | LOW_S | SIGHASH_FORKID), applied before any ECDSA work.

export const SIGHASH = {
  ALL: 0x01,
  NONE: 0x02,
  SINGLE: 0x03,
  FORKID: 0x40,
  ANYONECANPAY: 0x80,
} as const;

/** The owner's sighash: outputs fixed, inputs may be added. */
export const SIGHASH_OWNER = SIGHASH.ALL | SIGHASH.ANYONECANPAY | SIGHASH.FORKID; // 0xc1
/** The approver's and the funding input's sighash: commits to every input and output. */
export const SIGHASH_ALL_FORKID = SIGHASH.ALL | SIGHASH.FORKID; // 0x41

/**
 * BIP66 strict DER, for a signature with its trailing sighash byte
 * (Bitcoin Core's IsValidSignatureEncoding).
 */
export function isValidSignatureEncoding(sig: Uint8Array): boolean {
  if (sig.length < 9 || sig.length > 73) return false;
  if (sig[0] !== 0x30) return false;
  if (sig[1] !== sig.length - 3) return false;
  const lenR = sig[3]!;
  if (5 + lenR >= sig.length) return false;
  const lenS = sig[5 + lenR]!;
  if (lenR + lenS + 7 !== sig.length) return false;
  if (sig[2] !== 0x02) return false;
  if (lenR === 0) return false;
  if (sig[4]! & 0x80) return false;
  if (lenR > 1 && sig[4] === 0x00 && !(sig[5]! & 0x80)) return false;
  if (sig[lenR + 4] !== 0x02) return false;
  if (lenS === 0) return false;
  if (sig[lenR + 6]! & 0x80) return false;
  if (lenS > 1 && sig[lenR + 6] === 0x00 && !(sig[lenR + 7]! & 0x80)) return false;
  return true;
}

/** A defined sighash type that carries FORKID (required after the fork). */
export function isDefinedForkIdHashType(hashType: number): boolean {
  if (!(hashType & SIGHASH.FORKID)) return false;
  const base = hashType & ~(SIGHASH.ANYONECANPAY | SIGHASH.FORKID);
  return base >= SIGHASH.ALL && base <= SIGHASH.SINGLE;
}

/** Compressed (33 bytes, 02/03) or uncompressed (65 bytes, 04) public key encoding. */
export function isValidPublicKeyEncoding(key: Uint8Array): boolean {
  if (key.length === 33) return key[0] === 0x02 || key[0] === 0x03;
  if (key.length === 65) return key[0] === 0x04;
  return false;
}
