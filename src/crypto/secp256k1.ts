// ECDSA over secp256k1 through libsecp256k1 (npm `secp256k1`, native binding).
// `secp256k1/bindings` is imported on purpose: the package's main entry silently falls back to
// pure JS when the native build fails to load; this way a broken build fails loudly at start.
import { createRequire } from 'node:module';
import type * as Secp256k1 from 'secp256k1';

const require = createRequire(import.meta.url);
const secp = require('secp256k1/bindings') as typeof Secp256k1;

// Operations this process ran, counted: a benchmark divides a process's CPU by the signature work
// it really did (the devnet's verifies: GET /v1/devnet/counts; docs/performance.md "Efficiency").
let signs = 0;
let verifies = 0;

/** Signatures made and verifications run by this process so far (this thread: workers count apart). */
export function signatureCounts(): { readonly signs: number; readonly verifies: number } {
  return { signs, verifies };
}

/** Signs a 32-byte digest; returns the strict DER encoding of a low-S signature (no sighash byte). */
export function signDigest(digest: Uint8Array, privateKey: Uint8Array): Uint8Array {
  signs++;
  const { signature } = secp.ecdsaSign(digest, privateKey);
  return secp.signatureExport(signature);
}

/**
 * Verifies a strict-DER, low-S signature (no sighash byte) over a 32-byte digest.
 * High-S signatures fail, as libsecp256k1 (and the network's LOW_S rule) requires.
 */
export function verifyDigest(derSignature: Uint8Array, digest: Uint8Array, publicKey: Uint8Array): boolean {
  verifies++;
  try {
    const compact = secp.signatureImport(derSignature);
    return secp.ecdsaVerify(compact, digest, publicKey);
  } catch {
    return false;
  }
}

export function publicKeyOf(privateKey: Uint8Array, compressed = true): Uint8Array {
  return secp.publicKeyCreate(privateKey, compressed);
}

export function isValidPrivateKey(privateKey: Uint8Array): boolean {
  return privateKey.length === 32 && secp.privateKeyVerify(privateKey);
}

export function isValidPublicKey(publicKey: Uint8Array): boolean {
  return secp.publicKeyVerify(publicKey);
}

/** True when the DER signature's S is in the lower half of the order. */
export function isLowS(derSignature: Uint8Array): boolean {
  try {
    const compact = secp.signatureImport(derSignature);
    const normalized = secp.signatureNormalize(Uint8Array.from(compact));
    return Buffer.compare(Buffer.from(compact), Buffer.from(normalized)) === 0;
  } catch {
    return false;
  }
}
