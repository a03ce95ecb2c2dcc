// The crypto-only ceiling of a transfer, measured on this machine in the calling run: the
// signature operations one transfer needs (2 owner verifies at validation; 3 signs: 2 cosigns +
// funding; 5 verifies of the result) at libsecp256k1's speed. The baseline the transfer
// benchmarks divide by.
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { publicKeyOf, signDigest, verifyDigest } from '../src/crypto/secp256k1.js';

export const SIGNS_PER_TRANSFER = 3;
export const VERIFIES_PER_TRANSFER = 7;

export interface CryptoSpeed {
  /** Seconds per signature and per verification, on one core. */
  readonly sign: number;
  readonly verify: number;
}

export function measureCryptoSpeed(ops = 2000): CryptoSpeed {
  const key = randomBytes(32);
  const pub = publicKeyOf(key);
  const digests = Array.from({ length: ops }, () => randomBytes(32));
  let t = performance.now();
  const sigs = digests.map((d) => signDigest(d, key));
  const sign = (performance.now() - t) / 1000 / ops;
  t = performance.now();
  let ok = 0;
  for (const [i, d] of digests.entries()) if (verifyDigest(sigs[i]!, d, pub)) ok++;
  const verify = (performance.now() - t) / 1000 / ops;
  if (ok !== ops) throw new Error('baseline verification failed');
  return { sign, verify };
}

/** Transfers per second one core could complete if signatures were all the work. */
export function ceilingOf(speed: CryptoSpeed): number {
  return 1 / (SIGNS_PER_TRANSFER * speed.sign + VERIFIES_PER_TRANSFER * speed.verify);
}
