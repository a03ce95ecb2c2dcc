// Who a limit counts: anonymous IPv6 clients by their /64 (one host holds a whole /64, so
// counting each address let it rotate past the limit), IPv4-mapped addresses as their IPv4,
// over both stores; and the in-memory store, when it tracks its most clients, lets the oldest
// go instead of no longer recording new ones (before: a new client was then never limited).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import type { AppInstance } from '../../src/http/app.js';
import { clientKeyOfAddress } from '../../src/http/plugins/rate-limit.js';
import { createMemoryRateLimitStore, type RateLimitStore } from '../../src/http/plugins/rate-limit-store.js';
import { createRedisRateLimitStore } from '../../src/http/plugins/rate-limit-store-redis.js';
import { testApp } from './support.js';

const WINDOW = 60_000;

function routes(app: AppInstance): void {
  app.get('/thing', { config: { scope: 'read' } }, async () => ({ ok: true }));
}

for (const [name, make] of [
  ['memory', async () => createMemoryRateLimitStore()],
  [
    'redis',
    () => createRedisRateLimitStore({ url: 'redis://127.0.0.1:6379', prefix: `test:${randomUUID()}:` }),
  ],
] as const) {
  describe(`anonymous clients by address (${name} store)`, () => {
    const stores: RateLimitStore[] = [];
    after(async () => {
      for (const s of stores) await s.close();
    });
    const app = async () => {
      const store = await make();
      stores.push(store);
      const clock = { t: 7 * WINDOW + 500 };
      return testApp({
        routes: [routes],
        deps: {
          rateLimit: {
            store,
            algorithm: 'sliding',
            windowMs: WINDOW,
            perKey: 5,
            anonymous: 2,
            now: () => clock.t,
          },
        },
      }).app;
    };
    const from = (a: AppInstance, remoteAddress: string) =>
      a.inject({ url: '/thing', remoteAddress }).then((r) => r.statusCode);

    it('counts IPv6 addresses of one /64 together, and other /64s apart', async () => {
      const a = await app();
      assert.deepEqual(
        [
          await from(a, '2001:db8:1:2::1'),
          await from(a, '2001:db8:1:2:ffff:ffff:ffff:9'),
          await from(a, '2001:db8:1:2::abcd'),
          await from(a, '2001:db8:1:3::1'),
        ],
        [200, 200, 429, 200],
      );
      await a.close();
    });

    it('counts an IPv4-mapped address as its IPv4, and IPv4 addresses one by one', async () => {
      const a = await app();
      assert.deepEqual(
        [
          await from(a, '192.0.2.10'),
          await from(a, '::ffff:192.0.2.10'),
          await from(a, '192.0.2.10'),
          await from(a, '192.0.2.11'),
        ],
        [200, 200, 429, 200],
      );
      await a.close();
    });
  });
}

describe('client keys', () => {
  it('are the /64 for IPv6, the address for IPv4', () => {
    assert.equal(clientKeyOfAddress('2001:DB8:1:2:3:4:5:6'), 'ip:2001:db8:1:2::/64');
    assert.equal(clientKeyOfAddress('::ffff:198.51.100.3'), 'ip:198.51.100.3');
    assert.equal(clientKeyOfAddress('198.51.100.3'), 'ip:198.51.100.3');
    assert.equal(clientKeyOfAddress('not an address'), 'ip:not an address');
  });
});

describe('the in-memory store at its most clients', () => {
  const hit = (store: RateLimitStore, client: string, nowMs: number) =>
    store.hit({ client, limit: 2, windowMs: WINDOW, algorithm: 'fixed', nowMs }).then((d) => d.allowed);

  it('still limits a new client, letting the oldest go', async () => {
    const store = createMemoryRateLimitStore({ maxClients: 2 });
    const t = 3 * WINDOW;
    assert.equal(await hit(store, 'a', t), true);
    assert.equal(await hit(store, 'a', t), true);
    assert.equal(await hit(store, 'b', t + 1), true);
    // Full: c is recorded (a, the oldest, goes) and limited like anyone.
    assert.deepEqual(
      [await hit(store, 'c', t + 2), await hit(store, 'c', t + 3), await hit(store, 'c', t + 4)],
      [true, true, false],
    );
    // a was let go: it starts over; b, counted after a, went when a came back.
    assert.equal(await hit(store, 'a', t + 5), true);
    await store.close();
  });

  it('lets expired clients go first, before live ones', async () => {
    const store = createMemoryRateLimitStore({ maxClients: 2 });
    const t = 3 * WINDOW;
    assert.equal(await hit(store, 'old', t), true);
    const later = t + 2 * WINDOW; // old's counts have expired
    assert.equal(await hit(store, 'x', later), true);
    assert.equal(await hit(store, 'x', later), true);
    assert.equal(await hit(store, 'y', later), true);
    assert.equal(await hit(store, 'x', later), false, 'x is still counted: old went, not x');
    await store.close();
  });
});
