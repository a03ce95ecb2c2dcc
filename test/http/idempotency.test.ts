// The Idempotency-Key header's reading and which answers are kept (the replay itself is
// tested end to end in test/e2e/04_errors.test.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../src/http/app-error.js';
import { idempotencyKeyOf, keepsAnswer } from '../../src/http/plugins/idempotency.js';

describe('idempotencyKeyOf', () => {
  it('is undefined without the header', () => {
    assert.equal(idempotencyKeyOf(undefined), undefined);
  });

  it('takes a token as it is, or a structured-field string without its quotes', () => {
    assert.equal(
      idempotencyKeyOf('8e03978e-40d5-43e8-bc93-6894a57f9324'),
      '8e03978e-40d5-43e8-bc93-6894a57f9324',
    );
    assert.equal(idempotencyKeyOf('"retry 1"'), 'retry 1');
    assert.equal(idempotencyKeyOf('  k  '), 'k');
    assert.equal(idempotencyKeyOf('x'.repeat(255)), 'x'.repeat(255));
  });

  it('refuses an empty, too long, repeated or non-printable key with a 400', () => {
    for (const bad of ['', '""', '   ', 'x'.repeat(256), 'caf\u00e9', 'a\u0001b', 'a"b', ['a', 'b']]) {
      assert.throws(
        () => idempotencyKeyOf(bad),
        (err: unknown) => err instanceof AppError && err.status === 400 && err.code === 'INVALID_REQUEST',
        JSON.stringify(bad),
      );
    }
  });
});

describe('keepsAnswer', () => {
  it('keeps successes only: not refusals (issue 29), not server-side failures', () => {
    assert.deepEqual([200, 201, 400, 404, 422, 429, 500, 503].map(keepsAnswer), [
      true,
      true,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});
