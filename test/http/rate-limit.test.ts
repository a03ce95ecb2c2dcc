import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import type { AppInstance } from '../../src/http/app.js';
import type { RateLimitOptions } from '../../src/http/plugins/rate-limit.js';
import { createMemoryRateLimitStore, type RateLimitStore } from '../../src/http/plugins/rate-limit-store.js';
import { createRedisRateLimitStore } from '../../src/http/plugins/rate-limit-store-redis.js';
import { decide, type RateLimitAlgorithm, windowPosition } from '../../src/http/plugins/rate-limit-window.js';
import { KEYS, testApp } from './support.js';

const REDIS_URL = 'redis://127.0.0.1:6379';
const WINDOW = 60_000;

function routes(app: AppInstance): void {
  app.get('/thing', { config: { scope: 'read' } }, async () => ({ ok: true }));
  app.post('/thing', { config: { scope: 'submit' } }, async () => ({ ok: true }));
}

function limitedApp(store: RateLimitStore, clock: { t: number }, extra: Partial<RateLimitOptions> = {}) {
  return testApp({
    routes: [routes],
    deps: {
      rateLimit: {
        store,
        algorithm: 'fixed',
        windowMs: WINDOW,
        perKey: 3,
        anonymous: 2,
        now: () => clock.t,
        ...extra,
      },
    },
  });
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

function storeSuite(name: string, makeStore: () => Promise<RateLimitStore>) {
  describe(`rate limits over the ${name} store`, () => {
    const stores: RateLimitStore[] = [];
    const make = async () => {
      const store = await makeStore();
      stores.push(store);
      return store;
    };
    after(async () => {
      for (const store of stores) await store.close();
    });

    it('counts a key down, answers 429 with Retry-After, RateLimit and RateLimit-Policy, then resets', async () => {
      const clock = { t: 10 * WINDOW + 15_000 };
      const t = limitedApp(await make(), clock);
      const seen: string[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await t.app.inject({ url: '/thing', headers: bearer(KEYS.read) });
        assert.equal(res.statusCode, 200);
        assert.equal(res.headers['ratelimit-policy'], '"key";q=3;w=60');
        seen.push(String(res.headers.ratelimit));
      }
      assert.deepEqual(seen, ['"key";r=2;t=45', '"key";r=1;t=45', '"key";r=0;t=45']);
      const over = await t.app.inject({ url: '/thing', headers: bearer(KEYS.read) });
      assert.equal(over.statusCode, 429);
      assert.equal(over.headers['content-type'], 'application/problem+json');
      assert.equal(over.json().code, 'RATE_LIMITED');
      assert.equal(over.headers['retry-after'], '45');
      assert.equal(over.headers.ratelimit, '"key";r=0;t=45');
      // Another key has its own budget.
      const other = await t.app.inject({ method: 'POST', url: '/thing', headers: bearer(KEYS.submit) });
      assert.equal(other.statusCode, 200);
      assert.equal(other.headers.ratelimit, '"key";r=2;t=45');
      // Next window: allowed again.
      clock.t += 45_000;
      const next = await t.app.inject({ url: '/thing', headers: bearer(KEYS.read) });
      assert.equal(next.statusCode, 200);
      assert.equal(next.headers.ratelimit, '"key";r=2;t=60');
      await t.app.close();
    });

    it('limits anonymous clients by IP with their own quota, and leaves public routes alone', async () => {
      const clock = { t: 20 * WINDOW };
      const t = limitedApp(await make(), clock);
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await t.app.inject({ url: '/thing' })).statusCode);
      assert.deepEqual(statuses, [200, 200, 429]);
      const fromElsewhere = await t.app.inject({ url: '/thing', remoteAddress: '10.0.0.9' });
      assert.equal(fromElsewhere.statusCode, 200);
      assert.equal(fromElsewhere.headers['ratelimit-policy'], '"anonymous";q=2;w=60');
      const health = await t.app.inject({ url: '/healthz' });
      assert.equal(health.statusCode, 200);
      assert.equal(health.headers.ratelimit, undefined);
      await t.app.close();
    });

    it('a sliding window still weighs the previous window', async () => {
      const clock = { t: 30 * WINDOW + 30_000 };
      const t = limitedApp(await make(), clock, { algorithm: 'sliding', perKey: 4 });
      for (let i = 0; i < 4; i++) {
        assert.equal((await t.app.inject({ url: '/thing', headers: bearer(KEYS.admin) })).statusCode, 200);
      }
      // A quarter into the next window, 3 of the 4 previous hits still count: one more fits.
      clock.t = 31 * WINDOW + 15_000;
      const one = await t.app.inject({ url: '/thing', headers: bearer(KEYS.admin) });
      assert.equal(one.statusCode, 200);
      const two = await t.app.inject({ url: '/thing', headers: bearer(KEYS.admin) });
      assert.equal(two.statusCode, 429);
      // 3 + 1 > 3 until the previous weight drops to 2 hits: at half the window, 15 s on.
      assert.equal(two.headers['retry-after'], '15');
      clock.t += 15_000;
      assert.equal((await t.app.inject({ url: '/thing', headers: bearer(KEYS.admin) })).statusCode, 200);
      await t.app.close();
    });
  });
}

storeSuite('in-memory', async () => createMemoryRateLimitStore());
storeSuite('Redis', async () =>
  createRedisRateLimitStore({ url: REDIS_URL, prefix: `tokenproxy-test:${randomUUID()}:` }),
);

describe('rate limit stores', () => {
  it('two instances over Redis share one budget', async () => {
    const prefix = `tokenproxy-test:${randomUUID()}:`;
    const a = await createRedisRateLimitStore({ url: REDIS_URL, prefix });
    const b = await createRedisRateLimitStore({ url: REDIS_URL, prefix });
    try {
      const hit = { client: 'key:shared', limit: 3, windowMs: WINDOW, algorithm: 'fixed' as const, nowMs: 5 };
      const allowed = [];
      for (const store of [a, b, a, b, a]) allowed.push((await store.hit(hit)).allowed);
      assert.deepEqual(allowed, [true, true, true, false, false]);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('an unreachable Redis is refused at start, its password not shown', async () => {
    await assert.rejects(
      createRedisRateLimitStore({ url: 'redis://:hunter2secret@127.0.0.1:1' }),
      (err: Error) =>
        /cannot reach Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:1/.test(err.message) &&
        !err.message.includes('hunter2'),
    );
  });

  it('a store that fails lets the request through', async () => {
    const failing: RateLimitStore = {
      hit: async () => {
        throw new Error('redis down');
      },
      close: async () => undefined,
    };
    const t = limitedApp(failing, { t: 0 });
    const res = await t.app.inject({ url: '/thing', headers: bearer(KEYS.read) });
    assert.equal(res.statusCode, 200);
    assert.ok(t.records().some((r) => r.msg === 'rate limit store failed; request let through'));
    await t.app.close();
  });

  it('never allows more than the limit in any window (both algorithms, in-memory)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<RateLimitAlgorithm>('fixed', 'sliding'),
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.integer({ min: 0, max: 3 * WINDOW }), { minLength: 1, maxLength: 40 }),
        async (algorithm, limit, offsets) => {
          const store = createMemoryRateLimitStore();
          const times = [...offsets].sort((x, y) => x - y);
          const allowedAt: number[] = [];
          for (const nowMs of times) {
            const d = await store.hit({ client: 'c', limit, windowMs: WINDOW, algorithm, nowMs });
            if (d.allowed) allowedAt.push(nowMs);
            else assert.ok(d.retryAfterSeconds >= 1);
            assert.ok(d.remaining >= 0 && d.remaining <= limit - (d.allowed ? 1 : 0));
          }
          // Within any fixed window, never more than the limit.
          const perWindow = new Map<number, number>();
          for (const at of allowedAt) {
            const { index } = windowPosition(at, WINDOW);
            perWindow.set(index, (perWindow.get(index) ?? 0) + 1);
          }
          for (const count of perWindow.values()) assert.ok(count <= limit);
        },
      ),
    );
  });

  it('Retry-After of a refusal is when the next request fits', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<RateLimitAlgorithm>('fixed', 'sliding'),
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 0, max: 12 }),
        fc.integer({ min: 0, max: 12 }),
        fc.integer({ min: 0, max: WINDOW - 1 }),
        (algorithm, limit, current, previous, elapsedMs) => {
          const position = { index: 100, elapsedMs };
          const counts = { current, previous };
          const d = decide(algorithm, limit, WINDOW, counts, position);
          if (d.allowed) return;
          // At the time Retry-After names, the same counts (carried into later windows) fit.
          const at = 100 * WINDOW + elapsedMs + d.retryAfterSeconds * 1000;
          const later = windowPosition(at, WINDOW);
          const shifted =
            later.index === 100
              ? counts
              : later.index === 101
                ? { current: 0, previous: current }
                : { current: 0, previous: 0 };
          assert.ok(decide(algorithm, limit, WINDOW, shifted, later).allowed);
        },
      ),
    );
  });
});
