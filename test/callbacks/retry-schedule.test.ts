import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  attemptVerdict,
  backoffDelayMs,
  JITTER,
  nextRetry,
  parseRetryAfter,
  RETRY_DELAYS_MS,
  RETRY_WINDOW_MS,
} from '../../src/callbacks/retry-schedule.js';

const HOUR = 3_600_000;
const T0 = new Date('2026-01-01T00:00:00Z');

describe('retry schedule', () => {
  it('5 s, 30 s, 2 min, 10 min, 1 h, then hourly, without jitter at the midpoint', () => {
    const mid = () => 0.5;
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6, 20].map((n) => backoffDelayMs(n, mid)),
      [5_000, 30_000, 120_000, 600_000, HOUR, HOUR, HOUR],
    );
  });

  it('jitter stays within +-20 % of the step', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (n, r) => {
          const base = RETRY_DELAYS_MS[n - 1] ?? HOUR;
          const delay = backoffDelayMs(n, () => r);
          return delay >= base * (1 - JITTER) - 1 && delay <= base * (1 + JITTER) + 1;
        },
      ),
    );
  });

  it('a receiver that always fails is tried for at least 24 h, then given up, whatever the jitter', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { minLength: 1 }),
        (rs) => {
          let i = 0;
          const random = () => rs[i++ % rs.length]!;
          let now = T0;
          let failures = 0;
          for (;;) {
            failures++;
            const decision = nextRetry({ failures, firstAttemptAt: T0, now }, random);
            if (decision.kind === 'give-up') break;
            assert.ok(decision.at > now);
            now = decision.at;
          }
          const span = now.getTime() - T0.getTime();
          return span >= RETRY_WINDOW_MS && span < RETRY_WINDOW_MS + 1.2 * HOUR && failures < 40;
        },
      ),
    );
  });

  it('never retries sooner than Retry-After asks, capped at the window', () => {
    const at = (retryAfterMs: number) => {
      const d = nextRetry({ failures: 1, firstAttemptAt: T0, now: T0, retryAfterMs }, () => 0.5);
      assert.equal(d.kind, 'retry');
      return d.kind === 'retry' ? d.at.getTime() - T0.getTime() : -1;
    };
    assert.equal(at(120_000), 120_000);
    assert.equal(at(1_000), 5_000);
    assert.equal(at(10 * RETRY_WINDOW_MS), RETRY_WINDOW_MS);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    assert.equal(parseRetryAfter('120', T0), 120_000);
    assert.equal(parseRetryAfter(' 0 ', T0), 0);
    assert.equal(parseRetryAfter(new Date(T0.getTime() + 90_000).toUTCString(), T0), 90_000);
    assert.equal(parseRetryAfter(new Date(T0.getTime() - 90_000).toUTCString(), T0), 0);
    assert.equal(parseRetryAfter(undefined, T0), undefined);
    assert.equal(parseRetryAfter('soon', T0), undefined);
    assert.equal(parseRetryAfter('-5', T0), undefined);
  });

  it("judges an attempt's end: 2xx delivered, 410 gone, else retried until the window closes", () => {
    const ended = (
      answer: { status: number; retryAfter?: string } | undefined,
      attemptsBefore = 0,
      first = T0,
    ) =>
      attemptVerdict(
        {
          answer: answer === undefined ? undefined : { status: answer.status, retryAfter: answer.retryAfter },
          attemptsBefore,
          firstAttemptAt: attemptsBefore === 0 ? null : first,
          at: T0,
        },
        () => 0.5,
      );
    assert.deepEqual(ended({ status: 204 }), { kind: 'delivered' });
    assert.deepEqual(ended({ status: 410 }), { kind: 'gone' });
    assert.deepEqual(ended({ status: 503, retryAfter: '120' }), {
      kind: 'retry',
      at: new Date(T0.getTime() + 120_000),
    });
    assert.deepEqual(ended(undefined), { kind: 'retry', at: new Date(T0.getTime() + RETRY_DELAYS_MS[0]!) });
    assert.deepEqual(ended(undefined, 3, new Date(T0.getTime() - RETRY_WINDOW_MS)), { kind: 'failed' });
    assert.deepEqual(ended({ status: 410 }, 3, new Date(T0.getTime() - RETRY_WINDOW_MS)), { kind: 'gone' });
  });
});
