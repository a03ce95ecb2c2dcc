// Rate limits on the running service: anonymous clients and keys answered 429 with the
// RateLimit headers, in-memory by default and shared through Redis when redisUrl is set
// (two instances on one Redis spend one budget); keys with limits of their own (set at
// creation, changed with PATCH) hit 429 at their own limits, on either store.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { startTestService, type TestService } from './support.js';

const REDIS_URL = 'redis://127.0.0.1:6379';

/**
 * A fixed window starts at every multiple of its length since the epoch: counts made across a
 * start reset halfway (a test crossing 21:00:00 saw a limit of 5 allow 10). When the current
 * window ends within `marginMs`, waits until the next one has begun.
 */
async function clearOfWindowEdge(windowMs: number, marginMs: number): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < marginMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

async function get(url: string, key?: string) {
  const res = await fetch(url, key === undefined ? {} : { headers: { authorization: `Bearer ${key}` } });
  await res.arrayBuffer();
  return res;
}

describe('rate limits (e2e)', () => {
  const services: TestService[] = [];
  after(async () => {
    for (const s of services) await s.stop();
  });

  it('in-memory: an anonymous client over its quota gets 429 with Retry-After; a key has its own', async () => {
    const s = await startTestService([
      '--rate-limit-anonymous',
      '2',
      '--rate-limit-per-key',
      '3',
      '--rate-limit-algorithm',
      'fixed',
    ]);
    services.push(s);
    const url = `${s.url}/v1/config`;
    await clearOfWindowEdge(60_000, 5_000);
    const first = await get(url);
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('ratelimit-policy'), '"anonymous";q=2;w=60');
    assert.match(first.headers.get('ratelimit') ?? '', /^"anonymous";r=1;t=\d+$/);
    assert.equal((await get(url)).status, 200);
    const over = await get(url);
    assert.equal(over.status, 429);
    assert.match(over.headers.get('retry-after') ?? '', /^\d+$/);
    const keyed = await get(url, s.adminKey);
    assert.equal(keyed.status, 200);
    assert.match(keyed.headers.get('ratelimit') ?? '', /^"key";r=2;t=\d+$/);
    assert.equal((await get(`${s.url}/healthz`)).status, 200);
  });

  it('Redis: the counts live in Redis under the key ID, and the limit holds', async () => {
    const s = await startTestService(['--redis-url', REDIS_URL, '--rate-limit-per-key', '3']);
    services.push(s);
    const listed = await fetch(`${s.url}/v2/admin/keys`, {
      headers: { authorization: `Bearer ${s.adminKey}` },
    });
    const keys = (await listed.json()) as {
      keys: { id: string; name: string }[];
    };
    const admin = keys.keys.find((k) => k.name === 'admin');
    assert.ok(admin);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await get(`${s.url}/v1/config`, s.adminKey)).status);
    assert.deepEqual(statuses, [200, 200, 429]);
    const redis = new Redis(REDIS_URL);
    try {
      const stored = await redis.keys(`tokenproxy:ratelimit:key:${admin.id}:*`);
      assert.equal(stored.length, 1);
      assert.equal(await redis.get(stored[0]!), '3');
    } finally {
      redis.disconnect();
    }
  });

  for (const store of ['memory', 'redis'] as const) {
    it(`${store}: two keys with limits of their own hit 429 at their own limits; PATCH changes one`, async () => {
      const s = await startTestService([
        ...(store === 'redis' ? ['--redis-url', REDIS_URL] : []),
        '--rate-limit-per-key',
        '1000',
        '--rate-limit-algorithm',
        'fixed',
        '--rate-limit-window-ms',
        '3600000',
      ]);
      services.push(s);
      const admin = (method: string, path: string, body: unknown) =>
        fetch(`${s.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${s.adminKey}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const create = async (rateLimit: number) => {
        const res = await admin('POST', '/v2/admin/keys', { name: `limited ${rateLimit}`, rateLimit });
        assert.equal(res.status, 201);
        const created = (await res.json()) as { id: string; key: string; rateLimit: number };
        assert.equal(created.rateLimit, rateLimit);
        return created;
      };
      const [a, b] = [await create(3), await create(5)];
      await clearOfWindowEdge(3_600_000, 30_000);
      /** Requests until the first 429 (at most `max`), and that answer. */
      const allowed = async (key: string, max: number) => {
        for (let n = 0; n < max; n++) {
          const res = await get(`${s.url}/v1/config`, key);
          if (res.status === 429) return { n, res };
          assert.equal(res.status, 200);
        }
        throw new Error(`no 429 within ${max} requests`);
      };
      const first = await allowed(a.key, 20);
      assert.equal(first.n, 3);
      assert.equal(first.res.headers.get('ratelimit-policy'), '"key";q=3;w=3600');
      assert.match(first.res.headers.get('ratelimit') ?? '', /^"key";r=0;t=\d+$/);
      assert.match(first.res.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
      const second = await allowed(b.key, 20);
      assert.equal(second.n, 5);
      assert.equal(second.res.headers.get('ratelimit-policy'), '"key";q=5;w=3600');

      const listed = (await (
        await fetch(`${s.url}/v2/admin/keys`, { headers: { authorization: `Bearer ${s.adminKey}` } })
      ).json()) as { keys: { id: string; rateLimit: number | null; name: string }[] };
      assert.deepEqual(
        listed.keys.map((k) => [k.name, k.rateLimit]),
        [
          ['admin', null],
          ['limited 3', 3],
          ['limited 5', 5],
        ],
      );

      // Raised to 6: a has 3 more in this window; the admin key keeps the configured 1000.
      const patched = await admin('PATCH', `/v2/admin/keys/${a.id}`, { rateLimit: 6 });
      assert.equal(patched.status, 200);
      assert.equal(((await patched.json()) as { rateLimit: number }).rateLimit, 6);
      const raised = await allowed(a.key, 20);
      assert.equal(raised.n, 3);
      assert.equal(raised.res.headers.get('ratelimit-policy'), '"key";q=6;w=3600');
      const adminAnswer = await get(`${s.url}/v1/config`, s.adminKey);
      assert.equal(adminAnswer.headers.get('ratelimit-policy'), '"key";q=1000;w=3600');

      const unknown = await admin('PATCH', '/v2/admin/keys/018f0000-0000-7000-8000-000000000000', {
        rateLimit: 2,
      });
      assert.equal(unknown.status, 404);
      const zero = await admin('PATCH', `/v2/admin/keys/${a.id}`, { rateLimit: 0 });
      assert.equal(zero.status, 400);
      const back = await admin('PATCH', `/v2/admin/keys/${b.id}`, { rateLimit: null });
      assert.equal(((await back.json()) as { rateLimit: number | null }).rateLimit, null);
      assert.equal((await get(`${s.url}/v1/config`, b.key)).status, 200, 'b is back on the 1000 default');
    });
  }
});
