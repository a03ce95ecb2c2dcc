// The record of successful verifications answers only for the exact bytes that verified, and never
// for a check that failed.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { publicKeyOf, signDigest, verifyDigest } from '../../src/crypto/secp256k1.js';
import { VerifiedSignatures } from '../../src/crypto/verified-signatures.js';

function signed() {
  const key = randomBytes(32);
  const digest = randomBytes(32);
  return { digest, signature: signDigest(digest, key), publicKey: publicKeyOf(key) };
}

describe('VerifiedSignatures', () => {
  it('answers as verifyDigest, and a second check of the same bytes from its record', () => {
    const { digest, signature, publicKey } = signed();
    const verified = new VerifiedSignatures();
    assert.equal(verified.verify(signature, digest, publicKey), true);
    assert.equal(verified.reused, 0);
    // Equal bytes in other arrays are the same check.
    assert.equal(verified.verify(Uint8Array.from(signature), Uint8Array.from(digest), publicKey), true);
    assert.equal(verified.reused, 1);
  });

  it('never records a failure: a bad signature fails every time it is asked', () => {
    const { digest, signature, publicKey } = signed();
    const other = randomBytes(32);
    const verified = new VerifiedSignatures();
    assert.equal(verifyDigest(signature, other, publicKey), false);
    assert.equal(verified.verify(signature, other, publicKey), false);
    assert.equal(verified.verify(signature, other, publicKey), false);
    assert.equal(verified.reused, 0);
    assert.equal(verified.verify(signature, digest, publicKey), true);
  });

  it('does not answer for a different digest, signature or key than the one that verified', () => {
    const a = signed();
    const b = signed();
    const verified = new VerifiedSignatures();
    assert.equal(verified.verify(a.signature, a.digest, a.publicKey), true);
    assert.equal(verified.verify(a.signature, b.digest, a.publicKey), false);
    assert.equal(verified.verify(b.signature, a.digest, a.publicKey), false);
    assert.equal(verified.verify(a.signature, a.digest, b.publicKey), false);
    assert.equal(verified.reused, 0);
  });

  it('keeps signatures of different lengths with shared bytes apart', () => {
    // A key that ran the three parts together without the signature's length could take
    // (digest, der + first key byte, rest of key) for (digest, der, key).
    const a = signed();
    const verified = new VerifiedSignatures();
    assert.equal(verified.verify(a.signature, a.digest, a.publicKey), true);
    const longer = new Uint8Array([...a.signature, a.publicKey[0]!]);
    assert.equal(verified.verify(longer, a.digest, a.publicKey.subarray(1)), false);
    assert.equal(verified.reused, 0);
  });
});
