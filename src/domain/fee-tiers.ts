// Fee tiers: the token fee a transfer pays to the fee address, chosen by the transferred amount.
// All values are atomic units.

import { MAX_UINT64 } from './amount.js';

export interface FeeTier {
  readonly fee: bigint;
  /** Lowest transferred amount the tier covers, inclusive. */
  readonly min: bigint;
  /** Highest transferred amount the tier covers, inclusive. */
  readonly max: bigint;
}

/** The production token's tiers: up to 10 tokens pay 0.001 token, above that 0.01 token. */
export const DEFAULT_FEE_TIERS: readonly FeeTier[] = Object.freeze([
  Object.freeze({ min: 0n, max: 1_000_000n, fee: 100n }),
  Object.freeze({ min: 1_000_001n, max: MAX_UINT64, fee: 1000n }),
]);

/** What is wrong with a list of tiers, one sentence per defect; empty when the list is usable. */
export function feeTierProblems(tiers: readonly FeeTier[]): string[] {
  const problems: string[] = [];
  if (tiers.length === 0) problems.push('at least one fee tier is needed');
  tiers.forEach((tier, index) => {
    if (tier.fee < 0n) problems.push(`tier ${index}: fee ${tier.fee} is negative`);
    if (tier.min < 0n) problems.push(`tier ${index}: min ${tier.min} is negative`);
    if (tier.min > tier.max) problems.push(`tier ${index}: min ${tier.min} is above max ${tier.max}`);
  });
  const order = tiers.map((tier, index) => ({ tier, index })).sort((a, b) => compare(a.tier.min, b.tier.min));
  for (let i = 1; i < order.length; i++) {
    const previous = order[i - 1];
    const current = order[i];
    if (previous !== undefined && current !== undefined && current.tier.min <= previous.tier.max) {
      problems.push(`tiers ${previous.index} and ${current.index} overlap`);
    }
  }
  return problems;
}

/**
 * Checks a list of tiers (fee >= 0, 0 <= min <= max, no two tiers overlapping, at least one
 * tier; gaps are allowed and mean "no tier": the transfer is refused with NO_FEE_TIER).
 * @returns a frozen copy sorted by min.
 * @throws RangeError naming every defect.
 */
export function validateFeeTiers(tiers: readonly FeeTier[]): readonly FeeTier[] {
  const problems = feeTierProblems(tiers);
  if (problems.length > 0) throw new RangeError(`Invalid fee tiers: ${problems.join('; ')}`);
  return Object.freeze(
    [...tiers]
      .sort((a, b) => compare(a.min, b.min))
      .map((t) => Object.freeze({ fee: t.fee, min: t.min, max: t.max })),
  );
}

/**
 * The tier covering a transferred amount (min <= amount <= max). Exactly one tier must cover it:
 * none, or more than one (overlapping tiers that were never validated), answers null.
 */
export function feeTierFor(tiers: readonly FeeTier[], amount: bigint): FeeTier | null {
  let found: FeeTier | null = null;
  for (const tier of tiers) {
    if (tier.min <= amount && amount <= tier.max) {
      if (found !== null) return null;
      found = tier;
    }
  }
  return found;
}

function compare(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
