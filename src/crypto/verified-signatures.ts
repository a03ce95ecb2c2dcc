// The ECDSA verifications that succeeded while one transaction was handled, so that the same
// check is not paid for twice. A transfer's owner signatures are verified when it is validated,
// and again, over the same digests, when the cosigned result is verified before it leaves the
// process: ALL|ANYONECANPAY|FORKID commits to the owner's own input and every output, none of
// which cosigning changes. Verification is a pure function of (digest, signature, public key),
// so a recorded success stands for running the same check again. The signatures made since (the
// cosigns, the funding input's) are not in the record and are verified afresh: verify after sign.
import { verifyDigest } from './secp256k1.js';

export class VerifiedSignatures {
  readonly #succeeded = new Set<string>();
  #reused = 0;

  /** As verifyDigest; a check that succeeded before on these exact bytes is not run again. */
  verify(derSignature: Uint8Array, digest: Uint8Array, publicKey: Uint8Array): boolean {
    const key = keyOf(derSignature, digest, publicKey);
    if (this.#succeeded.has(key)) {
      this.#reused++;
      return true;
    }
    if (!verifyDigest(derSignature, digest, publicKey)) return false;
    this.#succeeded.add(key);
    return true;
  }

  /** How many verifications were answered from the record instead of run. */
  get reused(): number {
    return this.#reused;
  }
}

/**
 * The three inputs run together, the digest's and the signature's lengths first, so that no two
 * different triples share a key.
 */
function keyOf(derSignature: Uint8Array, digest: Uint8Array, publicKey: Uint8Array): string {
  const latin1 = (bytes: Uint8Array) =>
    Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  const lengths = String.fromCharCode(digest.length, derSignature.length);
  return `${lengths}${latin1(digest)}${latin1(derSignature)}${latin1(publicKey)}`;
}
