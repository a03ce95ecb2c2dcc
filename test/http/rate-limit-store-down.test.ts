// Redis lost after the start (rateLimitStoreDown): 'local' counts in this process meanwhile,
// 'refuse' answers 503 NOT_READY; either way the log says so once when it goes and once when it
// comes back, and tokenproxy_rate_limit_store_up is 0 meanwhile. Before: every request was let
// through with no limit at all and a warning of its own.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import type { AppInstance } from '../../src/http/app.js';
import { createMemoryRateLimitStore, type RateLimitStore } from '../../src/http/plugins/rate-limit-store.js';
import { type StoreDownMode, withStoreDownMode } from '../../src/http/plugins/rate-limit-store-fallback.js';
import { KEYS, testApp } from './support.js';

/** A shared store that fails while `down.now` is true (Redis out of reach). */
function flakyStore(down: { now: boolean }): RateLimitStore {
  const inner = createMemoryRateLimitStore();
  return {
    hit: async (hit) => {
      if (down.now) throw new Error('Connection is closed.');
      return inner.hit(hit);
    },
    close: () => inner.close(),
  };
}

function setup(mode: StoreDownMode) {
  const down = { now: false };
  const registry = new Registry();
  const logs: string[] = [];
  const clock = { t: 1_000_000 };
  const store = withStoreDownMode(flakyStore(down), {
    mode,
    registry,
    log: { warn: (_o, m) => logs.push(`warn ${m}`), info: (_o, m) => logs.push(`info ${m}`) },
    retryAfterMs: 0,
    nowMs: () => clock.t,
  });
  const app = testApp({
    routes: [
      (a: AppInstance) => {
        a.get('/thing', { config: { scope: 'read' } }, async () => ({ ok: true }));
      },
    ],
    deps: {
      rateLimit: { store, algorithm: 'fixed', windowMs: 60_000, perKey: 3, anonymous: 2, now: () => clock.t },
    },
  });
  const get = () =>
    app.app.inject({ method: 'GET', url: '/thing', headers: { authorization: `Bearer ${KEYS.read}` } });
  const up = async () =>
    (await registry.getSingleMetric('tokenproxy_rate_limit_store_up')!.get()).values[0]!.value;
  return { app, down, logs, get, up };
}

describe('rate limits while Redis is out of reach', () => {
  it("'local': limits still hold, counted in this process; said once each way", async () => {
    const { app, down, logs, get, up } = setup('local');
    try {
      assert.equal((await get()).statusCode, 200);
      down.now = true;
      const codes = [];
      for (let i = 0; i < 5; i++) codes.push((await get()).statusCode);
      assert.deepEqual(codes, [200, 200, 200, 429, 429], 'the limit of 3 holds, counted here');
      assert.equal(await up(), 0);
      assert.equal(logs.filter((l) => l.startsWith('warn')).length, 1, 'one record when it went');
      down.now = false;
      await get();
      assert.equal(await up(), 1);
      assert.ok(
        logs.some((l) => l.startsWith('info') && /back/.test(l)),
        'one record when it came back',
      );
    } finally {
      await app.app.close();
    }
  });

  it("'refuse': what the limits cover is answered 503 NOT_READY", async () => {
    const { app, down, get } = setup('refuse');
    try {
      down.now = true;
      const res = await get();
      assert.equal(res.statusCode, 503);
      assert.equal(res.json().code, 'NOT_READY');
      down.now = false;
      assert.equal((await get()).statusCode, 200);
    } finally {
      await app.app.close();
    }
  });
});
