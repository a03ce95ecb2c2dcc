// A request whose key is unknown (or malformed) is counted against the client's address under
// the anonymous limit: `Authorization: Bearer junk` no longer escapes it (before: a 401 came
// before the limiter counted, so such requests were never limited). A valid key keeps its own
// budget. Over both stores the HTTP layer uses.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import type { AppInstance } from '../../src/http/app.js';
import { createMemoryRateLimitStore, type RateLimitStore } from '../../src/http/plugins/rate-limit-store.js';
import { createRedisRateLimitStore } from '../../src/http/plugins/rate-limit-store-redis.js';
import { KEYS, testApp } from './support.js';

const WINDOW = 60_000;

function routes(app: AppInstance): void {
  app.get('/thing', { config: { scope: 'read' } }, async () => ({ ok: true }));
  app.post('/thing', { config: { scope: 'submit' } }, async () => ({ ok: true }));
}

function limited(store: RateLimitStore) {
  const clock = { t: 5 * WINDOW + 1000 };
  return testApp({
    routes: [routes],
    deps: {
      rateLimit: { store, algorithm: 'fixed', windowMs: WINDOW, perKey: 5, anonymous: 3, now: () => clock.t },
    },
  }).app;
}

for (const [name, make] of [
  ['memory', async () => createMemoryRateLimitStore()],
  [
    'redis',
    () => createRedisRateLimitStore({ url: 'redis://127.0.0.1:6379', prefix: `test:${randomUUID()}:` }),
  ],
] as const) {
  describe(`failed authentication is rate limited (${name} store)`, () => {
    const stores: RateLimitStore[] = [];
    after(async () => {
      for (const s of stores) await s.close();
    });
    const app = async () => {
      const store = await make();
      stores.push(store);
      return limited(store);
    };

    it('counts unknown keys against the address: 401 under the limit, then 429', async () => {
      const a = await app();
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        const res = await a.inject({ url: '/thing', headers: { authorization: `Bearer junk-${i}` } });
        statuses.push(res.statusCode);
        if (res.statusCode === 401) {
          assert.equal(res.json().code, 'UNAUTHORIZED');
          assert.equal(res.headers['ratelimit-policy'], '"anonymous";q=3;w=60');
        }
      }
      assert.deepEqual(statuses, [401, 401, 401, 429, 429]);
      // Same address, anonymous: the budget is spent.
      assert.equal((await a.inject({ url: '/thing' })).statusCode, 429);
      // A valid key from the same address keeps its own.
      const keyed = await a.inject({ url: '/thing', headers: { authorization: `Bearer ${KEYS.read}` } });
      assert.equal(keyed.statusCode, 200);
      // Another address is not affected.
      assert.equal((await a.inject({ url: '/thing', remoteAddress: '192.0.2.7' })).statusCode, 200);
      await a.close();
    });

    it('counts malformed credentials and keyless writes the same way', async () => {
      const a = await app();
      const statuses: number[] = [];
      statuses.push((await a.inject({ url: '/thing', headers: { authorization: 'Basic abc' } })).statusCode);
      statuses.push((await a.inject({ method: 'POST', url: '/thing' })).statusCode);
      statuses.push((await a.inject({ url: '/thing?auth_token=a&auth_token=b' })).statusCode);
      statuses.push(
        (await a.inject({ url: '/thing', headers: { authorization: 'Bearer nope' } })).statusCode,
      );
      assert.deepEqual(statuses, [401, 401, 401, 429]);
      await a.close();
    });
  });
}
