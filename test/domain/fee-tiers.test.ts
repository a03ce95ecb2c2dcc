import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  DEFAULT_FEE_TIERS,
  type FeeTier,
  feeTierFor,
  feeTierProblems,
  validateFeeTiers,
} from '../../src/domain/fee-tiers.js';

const tier = (min: bigint, max: bigint, fee: bigint): FeeTier => ({ min, max, fee });

describe('DEFAULT_FEE_TIERS', () => {
  it('are the production tiers: 0..1,000,000 pay 100, 1,000,001..2^64-1 pay 1000', () => {
    assert.deepEqual(DEFAULT_FEE_TIERS, [
      { min: 0n, max: 1_000_000n, fee: 100n },
      { min: 1_000_001n, max: 18446744073709551615n, fee: 1000n },
    ]);
    assert.deepEqual(validateFeeTiers(DEFAULT_FEE_TIERS), DEFAULT_FEE_TIERS);
  });

  it('charge by the amount at the boundaries', () => {
    const cases: Array<[bigint, bigint | null]> = [
      [0n, 100n],
      [1n, 100n],
      [1_000_000n, 100n],
      [1_000_001n, 1000n],
      [18446744073709551615n, 1000n],
      [18446744073709551616n, null],
      [-1n, null],
    ];
    for (const [amount, fee] of cases) {
      assert.equal(feeTierFor(DEFAULT_FEE_TIERS, amount)?.fee ?? null, fee, String(amount));
    }
  });
});

describe('feeTierFor', () => {
  it('answers null in a gap and where two tiers overlap', () => {
    const gappy = [tier(0n, 10n, 1n), tier(20n, 30n, 2n)];
    assert.equal(feeTierFor(gappy, 15n), null);
    assert.equal(feeTierFor(gappy, 20n)?.fee, 2n);
    const overlapping = [tier(0n, 10n, 1n), tier(10n, 30n, 2n)];
    assert.equal(feeTierFor(overlapping, 10n), null);
    assert.equal(feeTierFor(overlapping, 9n)?.fee, 1n);
    assert.equal(feeTierFor(overlapping, 11n)?.fee, 2n);
    assert.equal(feeTierFor([], 5n), null);
  });

  it('returns the tier iff exactly one covers the amount (brute-force oracle)', () => {
    const arbTier = fc
      .tuple(
        fc.bigInt({ min: 0n, max: 50n }),
        fc.bigInt({ min: 0n, max: 20n }),
        fc.bigInt({ min: 0n, max: 9n }),
      )
      .map(([min, width, fee]) => tier(min, min + width, fee));
    fc.assert(
      fc.property(fc.array(arbTier, { maxLength: 5 }), fc.bigInt({ min: -2n, max: 52n }), (tiers, amount) => {
        const covering = tiers.filter((t) => t.min <= amount && amount <= t.max);
        assert.equal(feeTierFor(tiers, amount), covering.length === 1 ? covering[0] : null);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('validateFeeTiers', () => {
  it('returns the tiers sorted by min', () => {
    const tiers = [tier(11n, 20n, 2n), tier(0n, 10n, 1n)];
    assert.deepEqual(validateFeeTiers(tiers), [tier(0n, 10n, 1n), tier(11n, 20n, 2n)]);
  });

  it('accepts gaps and single-amount tiers', () => {
    assert.deepEqual(feeTierProblems([tier(0n, 0n, 0n), tier(5n, 5n, 1n), tier(100n, 200n, 3n)]), []);
  });

  it('refuses negative fees, negative min, min above max, overlap and an empty list', () => {
    const bad: Array<[FeeTier[], RegExp]> = [
      [[], /at least one/],
      [[tier(0n, 10n, -1n)], /fee -1 is negative/],
      [[tier(-1n, 10n, 1n)], /min -1 is negative/],
      [[tier(10n, 9n, 1n)], /min 10 is above max 9/],
      [[tier(0n, 10n, 1n), tier(10n, 20n, 1n)], /tiers 0 and 1 overlap/],
      [[tier(5n, 20n, 1n), tier(0n, 100n, 1n)], /tiers 1 and 0 overlap/],
      [[tier(0n, 100n, 1n), tier(200n, 300n, 1n), tier(50n, 60n, 1n)], /tiers 0 and 2 overlap/],
    ];
    for (const [tiers, message] of bad) {
      assert.throws(
        () => validateFeeTiers(tiers),
        (e: unknown) => e instanceof RangeError && message.test(e.message),
      );
    }
  });

  it('accepts exactly the lists where no amount is covered twice (oracle on a small range)', () => {
    const arbTier = fc
      .tuple(fc.bigInt({ min: 0n, max: 25n }), fc.bigInt({ min: 0n, max: 5n }))
      .map(([min, width]) => tier(min, min + width, 1n));
    fc.assert(
      fc.property(fc.array(arbTier, { minLength: 1, maxLength: 4 }), (tiers) => {
        let overlap = false;
        for (let amount = 0n; amount <= 30n; amount++) {
          if (tiers.filter((t) => t.min <= amount && amount <= t.max).length > 1) overlap = true;
        }
        assert.equal(feeTierProblems(tiers).length > 0, overlap);
      }),
      { numRuns: 1000 },
    );
  });
});
