// Token amounts. Atomic units are `bigint` everywhere; a decimal token string or a JSON number
// exists only at the edge. No floating point takes part in any computation here.

import { DomainError } from './domain-error.js';

/** Decimal places of the token: 1 token = 10^DECIMALS atomic units. */
export const DECIMALS = 5;

/** Atomic units in one token (100,000). */
export const ATOMIC_PER_TOKEN = 10n ** BigInt(DECIMALS);

/** The largest amount an inscription `amt` may carry (uint64). */
export const MAX_UINT64 = 2n ** 64n - 1n;

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

// A plain decimal: ASCII digits, optionally a point followed by 1 to DECIMALS digits.
// No sign, exponent, space, bare point, or point without digits after it.
const PLAIN_DECIMAL = new RegExp(`^([0-9]+)(?:\\.([0-9]{1,${DECIMALS}}))?$`);

// The inscription `amt` rule: a positive integer without leading zeros.
const CANONICAL_POSITIVE = /^[1-9][0-9]*$/;
const MAX_UINT64_DIGITS = MAX_UINT64.toString().length;

/**
 * Parses a decimal token amount ("1.5", "0.00001", "12") into atomic units, exactly.
 * Leading zeros in the integer part are accepted ("007.5"); at most DECIMALS decimals.
 * @throws DomainError INVALID_AMOUNT on anything that is not a plain non-negative decimal.
 */
export function parseTokens(text: string): bigint {
  const match = PLAIN_DECIMAL.exec(text);
  if (match === null) {
    throw new DomainError(
      'INVALID_AMOUNT',
      `Amount must be a plain decimal with at most ${DECIMALS} decimals, got ${JSON.stringify(text)}`,
    );
  }
  const whole = match[1] ?? '0';
  const fraction = (match[2] ?? '').padEnd(DECIMALS, '0');
  return BigInt(whole) * ATOMIC_PER_TOKEN + BigInt(fraction);
}

/**
 * Formats atomic units as the canonical decimal token string: no trailing zeros in the fraction,
 * no point for whole amounts, a leading "-" for negative amounts (which parseTokens refuses).
 */
export function formatTokens(atomic: bigint): string {
  const sign = atomic < 0n ? '-' : '';
  const magnitude = atomic < 0n ? -atomic : atomic;
  const whole = magnitude / ATOMIC_PER_TOKEN;
  const fraction = (magnitude % ATOMIC_PER_TOKEN).toString().padStart(DECIMALS, '0').replace(/0+$/, '');
  return fraction === '' ? `${sign}${whole}` : `${sign}${whole}.${fraction}`;
}

/**
 * The inscription `amt` rule: a canonical decimal string of a positive integer (no sign, no
 * leading zeros, no exponent, no spaces) not above MAX_UINT64. Anything else answers null.
 */
export function parseCanonicalAmount(text: string): bigint | null {
  if (text.length > MAX_UINT64_DIGITS || !CANONICAL_POSITIVE.test(text)) return null;
  const value = BigInt(text);
  return value <= MAX_UINT64 ? value : null;
}

/**
 * Converts a bigint to a JSON number, for the wire only.
 * @throws RangeError when |value| > Number.MAX_SAFE_INTEGER (the number would not be exact).
 */
export function toJsonNumber(value: bigint): number {
  if (value > MAX_SAFE || value < -MAX_SAFE) {
    throw new RangeError(`${value} is beyond Number.MAX_SAFE_INTEGER and cannot be a JSON number`);
  }
  return Number(value);
}

/**
 * The decimal token amount as a JSON number (the Balance resource's `precised`): the double
 * nearest to the exact decimal, obtained by parsing the formatted string (correctly rounded),
 * never by dividing doubles.
 */
export function precised(atomic: bigint): number {
  return Number(formatTokens(atomic));
}
