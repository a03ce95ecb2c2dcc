// The benchmarks' one median (bench/median.ts): the middle value, the upper middle of an even
// count, and a round picked whole by one of its figures.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { medianBy, medianOf } from '../../bench/median.js';

describe('the benchmarks’ median', () => {
  it('is the middle of an odd count, whatever the order', () => {
    assert.equal(medianOf([9, 1, 5]), 5);
    assert.equal(medianOf([3]), 3);
  });

  it('is the upper of the two middle values of an even count', () => {
    assert.equal(medianOf([4, 1, 3, 2]), 3);
  });

  it('picks a round whole, by the figure given, leaving the input as it was', () => {
    const rounds = [
      { ratio: 0.5, rate: 10 },
      { ratio: 0.2, rate: 30 },
      { ratio: 0.9, rate: 20 },
    ];
    assert.deepEqual(
      medianBy(rounds, (r) => r.ratio),
      { ratio: 0.5, rate: 10 },
    );
    assert.deepEqual(
      medianBy(rounds, (r) => r.rate),
      { ratio: 0.9, rate: 20 },
    );
    assert.deepEqual(
      rounds.map((r) => r.ratio),
      [0.5, 0.2, 0.9],
    );
  });

  it('refuses no values at all', () => {
    assert.throws(() => medianOf([]), /no values/);
  });
});
