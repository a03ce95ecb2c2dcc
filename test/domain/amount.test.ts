import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  ATOMIC_PER_TOKEN,
  DECIMALS,
  formatTokens,
  MAX_UINT64,
  parseCanonicalAmount,
  parseTokens,
  precised,
  toJsonNumber,
} from '../../src/domain/amount.js';
import { DomainError } from '../../src/domain/domain-error.js';

const isInvalidAmount = (error: unknown): boolean =>
  error instanceof DomainError && error.code === 'INVALID_AMOUNT';

describe('constants', () => {
  it('has 5 decimals and 100,000 atomic units per token', () => {
    assert.equal(DECIMALS, 5);
    assert.equal(ATOMIC_PER_TOKEN, 100_000n);
    assert.equal(MAX_UINT64, 18446744073709551615n);
  });
});

describe('parseTokens', () => {
  it('parses plain decimals exactly', () => {
    const cases: Array<[string, bigint]> = [
      ['0', 0n],
      ['1', 100_000n],
      ['12', 1_200_000n],
      ['1.5', 150_000n],
      ['0.00001', 1n],
      ['0.1', 10_000n],
      ['007.50', 750_000n],
      ['184467440737095.51615', MAX_UINT64],
      ['123456789012345678901234567890.12345', 12345678901234567890123456789012345n],
    ];
    for (const [text, atomic] of cases) assert.equal(parseTokens(text), atomic, text);
  });

  it('adds 0.1 and 0.2 tokens without floating point error', () => {
    assert.equal(parseTokens('0.1') + parseTokens('0.2'), 30_000n);
    assert.equal(parseTokens('0.1') + parseTokens('0.2'), parseTokens('0.3'));
  });

  it('refuses anything that is not a plain decimal with at most 5 decimals', () => {
    const bad = [
      '',
      ' ',
      ' 1',
      '1 ',
      '1 000',
      '+1',
      '-1',
      '-0',
      '1e5',
      '1E5',
      '0x10',
      '.5',
      '5.',
      '.',
      '1.000001',
      '0.000001',
      '1,5',
      '1..5',
      'NaN',
      'Infinity',
      '١',
      '1\n',
      '1_000',
    ];
    for (const text of bad) assert.throws(() => parseTokens(text), isInvalidAmount, JSON.stringify(text));
  });

  it('round-trips format for every non-negative bigint up to 2^64', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 64n }), (atomic) => {
        assert.equal(parseTokens(formatTokens(atomic)), atomic);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('formatTokens', () => {
  it('formats canonical decimals', () => {
    const cases: Array<[bigint, string]> = [
      [0n, '0'],
      [1n, '0.00001'],
      [150_000n, '1.5'],
      [1_200_000n, '12'],
      [123_456n, '1.23456'],
      [100_010n, '1.0001'],
      [MAX_UINT64, '184467440737095.51615'],
      [-150_000n, '-1.5'],
      [-1n, '-0.00001'],
    ];
    for (const [atomic, text] of cases) assert.equal(formatTokens(atomic), text, String(atomic));
  });

  it('is canonical: no leading zeros, no trailing fraction zeros, at most 5 decimals', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 64n }), (atomic) => {
        const text = formatTokens(atomic);
        assert.match(text, /^(0|[1-9][0-9]*)(\.[0-9]{0,4}[1-9])?$/);
      }),
      { numRuns: 2000 },
    );
  });

  it('is injective on the digits: the text without the point is the atomic value scaled', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 64n }), (atomic) => {
        const [whole = '', fraction = ''] = formatTokens(atomic).split('.');
        assert.equal(BigInt(whole + fraction.padEnd(DECIMALS, '0')), atomic);
      }),
    );
  });
});

describe('parseCanonicalAmount', () => {
  const oracle = (text: string): bigint | null => {
    try {
      const value = BigInt(text);
      return String(value) === text && value > 0n && value <= MAX_UINT64 ? value : null;
    } catch {
      return null;
    }
  };

  it('accepts canonical positive integers up to uint64', () => {
    assert.equal(parseCanonicalAmount('1'), 1n);
    assert.equal(parseCanonicalAmount('5000000'), 5_000_000n);
    assert.equal(parseCanonicalAmount('18446744073709500000'), 18446744073709500000n);
    assert.equal(parseCanonicalAmount('18446744073709551615'), MAX_UINT64);
  });

  it('refuses zero, signs, leading zeros, exponents, spaces and overflow', () => {
    const bad = [
      '',
      '0',
      '00',
      '01',
      '+1',
      '-1',
      '1e3',
      '1.0',
      '1.',
      ' 1',
      '1 ',
      '0x1',
      '18446744073709551616',
      '99999999999999999999',
      '118446744073709551615',
      '１',
      '1n',
    ];
    for (const text of bad) assert.equal(parseCanonicalAmount(text), null, JSON.stringify(text));
  });

  it('accepts exactly the canonical strings (oracle: String(BigInt(s)) === s, 0 < s <= uint64)', () => {
    const digits = fc.string({ unit: fc.constantFrom('0', '1', '9', '5'), maxLength: 22 });
    const nearCanonical = fc
      .tuple(
        fc.bigInt({ min: -10n, max: 2n ** 65n }),
        fc.constantFrom('', '0', '+', '-', ' ', '00'),
        fc.constantFrom('', ' ', 'e0', '.0', '\n', 'n'),
      )
      .map(([n, prefix, suffix]) => `${prefix}${n}${suffix}`);
    const text = fc.oneof(
      fc.bigInt({ min: 0n, max: 2n ** 65n }).map(String),
      nearCanonical,
      digits,
      fc.string({ maxLength: 24 }),
    );
    fc.assert(
      fc.property(text, (s) => {
        assert.equal(parseCanonicalAmount(s), oracle(s));
      }),
      { numRuns: 5000 },
    );
  });
});

describe('toJsonNumber', () => {
  it('converts safe integers exactly', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (n) => {
        assert.equal(toJsonNumber(BigInt(n)), n);
      }),
    );
  });

  it('throws RangeError beyond Number.MAX_SAFE_INTEGER', () => {
    const max = BigInt(Number.MAX_SAFE_INTEGER);
    assert.equal(toJsonNumber(max), Number.MAX_SAFE_INTEGER);
    assert.equal(toJsonNumber(-max), -Number.MAX_SAFE_INTEGER);
    assert.throws(() => toJsonNumber(max + 1n), RangeError);
    assert.throws(() => toJsonNumber(-max - 1n), RangeError);
    assert.throws(() => toJsonNumber(MAX_UINT64), RangeError);
  });
});

describe('precised', () => {
  it('gives the token amount as a number', () => {
    assert.equal(precised(0n), 0);
    assert.equal(precised(150_000n), 1.5);
    assert.equal(precised(1n), 0.00001);
    assert.equal(precised(30_000n), 0.3);
  });

  it('is the correctly rounded quotient for safe amounts (IEEE division of exact operands)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: BigInt(Number.MAX_SAFE_INTEGER) }), (atomic) => {
        assert.equal(precised(atomic), Number(atomic) / 100_000);
      }),
      { numRuns: 2000 },
    );
  });

  it('stays the nearest double for amounts beyond 2^53 atomic', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 2n ** 53n, max: 2n ** 64n }), (atomic) => {
        const x = precised(atomic);
        const distance = (candidate: number): [bigint, bigint] => {
          const [num, den] = exactRational(candidate);
          const diff = num * 100_000n - atomic * den;
          return [diff < 0n ? -diff : diff, den * 100_000n];
        };
        const [d, dDen] = distance(x);
        for (const neighbour of [nextDouble(x, -1), nextDouble(x, 1)]) {
          const [n, nDen] = distance(neighbour);
          assert.ok(d * nDen <= n * dDen, `${x} is not the nearest double to ${atomic}/1e5`);
        }
      }),
      { numRuns: 500 },
    );
    assert.equal(precised(18446744073709500000n), 184467440737095);
  });
});

/** The exact value of a positive finite double as numerator / denominator (a power of two). */
function exactRational(x: number): [bigint, bigint] {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const exponent = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  const mantissa = exponent === 0 ? fraction : fraction | (1n << 52n);
  const power = (exponent === 0 ? 1 : exponent) - 1075;
  return power >= 0 ? [mantissa << BigInt(power), 1n] : [mantissa, 1n << BigInt(-power)];
}

/** The adjacent positive double below (-1) or above (+1). */
function nextDouble(x: number, direction: -1 | 1): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  view.setBigUint64(0, view.getBigUint64(0) + BigInt(direction));
  return view.getFloat64(0);
}
