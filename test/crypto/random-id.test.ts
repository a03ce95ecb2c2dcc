// UUIDv7 layout (RFC 9562), time ordering, monotonic ids within one millisecond, and
// prefixed random tokens.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { isUuid, randomToken, uuidv7, uuidv7Time } from '../../src/crypto/random-id.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function bits(id: string): bigint {
  return BigInt(`0x${id.replaceAll('-', '')}`);
}

describe('uuidv7', () => {
  test('has the canonical form, version 7 and variant 10', () => {
    for (let i = 0; i < 200; i++) {
      const id = uuidv7();
      assert.match(id, UUID_V7);
      assert.ok(isUuid(id));
      const n = bits(id);
      assert.equal((n >> 76n) & 0xfn, 7n, 'version nibble');
      assert.equal((n >> 62n) & 0b11n, 0b10n, 'variant bits');
    }
  });

  test('carries the given time in its first 48 bits', () => {
    const times = [0, 1, 1_700_000_000_123, 2 ** 48 - 1];
    for (const t of times) {
      const id = uuidv7(t);
      assert.equal(uuidv7Time(id), t);
      assert.equal(bits(id) >> 80n, BigInt(t));
    }
    assert.ok(uuidv7(1_700_000_000_123).startsWith('018bcfe5-687b-7'));
  });

  test('refuses a time that does not fit 48 bits', () => {
    assert.throws(() => uuidv7(-1), RangeError);
    assert.throws(() => uuidv7(2 ** 48), RangeError);
    assert.throws(() => uuidv7(1.5), RangeError);
  });

  test('ids sort by time, as strings', () => {
    const ids = [5, 1_000, 1_001, 1_700_000_000_000, 1_700_000_000_001, 2 ** 47].map((t) => uuidv7(t));
    assert.deepStrictEqual([...ids].sort(), ids);
  });

  test('ids of the same millisecond increase and differ', () => {
    const t = 1_750_000_000_000;
    const ids = Array.from({ length: 1000 }, () => uuidv7(t));
    for (let i = 1; i < ids.length; i++) assert.ok(ids[i]! > ids[i - 1]!, `${ids[i]} > ${ids[i - 1]}`);
    assert.equal(new Set(ids).size, ids.length);
    for (const id of ids) assert.equal(uuidv7Time(id), t);
  });

  test('the random part is random across milliseconds', () => {
    const randomParts = new Set(Array.from({ length: 50 }, (_, i) => uuidv7(1_000_000 + i * 7).slice(15)));
    assert.equal(randomParts.size, 50);
  });
});

describe('isUuid', () => {
  test('accepts the canonical form only', () => {
    assert.ok(isUuid('00000000-0000-0000-0000-000000000000'));
    assert.ok(isUuid('018BCFE5-687B-7000-8000-000000000000'));
    assert.ok(!isUuid('018bcfe5687b70008000000000000000'));
    assert.ok(!isUuid('not-a-uuid'));
    assert.ok(!isUuid('018bcfe5-687b-7000-8000-00000000000g'));
  });
});

describe('randomToken', () => {
  test('is the prefix and base64url of the requested number of bytes', () => {
    const token = randomToken('tp_', 32);
    assert.match(token, /^tp_[A-Za-z0-9_-]{43}$/);
    assert.equal(Buffer.from(token.slice(3), 'base64url').length, 32);
    assert.equal(Buffer.from(randomToken('', 5), 'base64url').length, 5);
  });

  test('differs every time', () => {
    const tokens = new Set(Array.from({ length: 100 }, () => randomToken('x_', 16)));
    assert.equal(tokens.size, 100);
  });

  test('refuses a size below one byte', () => {
    assert.throws(() => randomToken('x', 0), RangeError);
    assert.throws(() => randomToken('x', 2.5), RangeError);
  });
});
