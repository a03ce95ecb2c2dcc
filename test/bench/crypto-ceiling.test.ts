// The transfer benchmarks' baseline: the crypto ceiling of a run is the median of its samples, so
// one sample slowed down by a neighbour on the machine does not move the ratio.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CeilingSamples, ceilingOf, measureCryptoSpeed } from '../../bench/crypto-ceiling.js';

describe('bench: crypto ceiling samples', () => {
  it('is the median of its samples, whatever their order, and says their range', () => {
    const odd = new CeilingSamples();
    for (const c of [1_567, 1_059, 1_224, 1_249, 1_300]) odd.add(c);
    assert.equal(odd.median, 1_249);
    assert.equal(odd.describe(), 'median of 5 samples, 1059-1567');
    const even = new CeilingSamples();
    for (const c of [1_400, 1_000, 1_200, 1_100]) even.add(c);
    assert.equal(even.median, 1_150);
  });

  it('has no figure before its first sample', () => {
    assert.throws(() => new CeilingSamples().median, /no ceiling sampled/);
  });

  it('samples libsecp256k1 on this machine: 3 signs and 7 verifies a transfer', () => {
    const samples = new CeilingSamples();
    samples.sample(3, 50);
    assert.match(samples.describe(), /^median of 3 samples, \d+-\d+$/);
    const speed = measureCryptoSpeed(50);
    assert.equal(ceilingOf(speed), 1 / (3 * speed.sign + 7 * speed.verify));
    assert.ok(samples.median > 0 && Number.isFinite(samples.median));
  });
});
