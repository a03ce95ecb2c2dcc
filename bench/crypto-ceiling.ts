// The crypto-only ceiling of a transfer, measured on this machine in the calling run: the
// signature operations one transfer needed when the issue set its targets (2 owner verifies at
// validation; 3 signs: 2 cosigns + funding; 5 verifies of the result) at libsecp256k1's speed.
// The baseline the transfer benchmarks divide by. The service runs 5 verifies, not 7 (an owner
// signature is verified once: src/crypto/verified-signatures.ts); the unit stays as it was
// defined, so ratios measured before and after that change compare.
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

/**
 * The ceiling of a run from short samples taken before and after it, as their median. One sample
 * of a fraction of a second on a shared machine moves by half from one to the next (1,059 and
 * 1,567 transfers a second in two runs ten minutes apart), and the ratio with it.
 */
export class CeilingSamples {
  readonly #ceilings: number[] = [];

  /** Takes `samples` samples of `ops` signatures and verifications each. */
  sample(samples = 5, ops = 500): void {
    for (let i = 0; i < samples; i++) this.add(ceilingOf(measureCryptoSpeed(ops)));
  }

  /** One sample, in transfers a second. */
  add(ceiling: number): void {
    this.#ceilings.push(ceiling);
  }

  /** The median sample; throws before the first. */
  get median(): number {
    if (this.#ceilings.length === 0) throw new Error('no ceiling sampled');
    const sorted = [...this.#ceilings].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  }

  /** "median of N samples, low-high" for the printed line. */
  describe(): string {
    const low = Math.min(...this.#ceilings);
    const high = Math.max(...this.#ceilings);
    return `median of ${this.#ceilings.length} samples, ${low.toFixed(0)}-${high.toFixed(0)}`;
  }
}

/** Transfers per second one core could complete if signatures were all the work. */
export function ceilingOf(speed: CryptoSpeed): number {
  return 1 / (SIGNS_PER_TRANSFER * speed.sign + VERIFIES_PER_TRANSFER * speed.verify);
}
