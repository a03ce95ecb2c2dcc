// Rate limits on the running service: anonymous clients and keys answered 429 with the
// RateLimit headers, in-memory by default and shared through Redis when redisUrl is set
// (two instances on one Redis spend one budget).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { startTestService, type TestService } from './support.js';

const REDIS_URL = 'redis://127.0.0.1:6379';

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
});
