// Scale-out with Redis: four api instances on one PostgreSQL spend one key's budget together.
// A key with a limit of its own gets exactly that many answers across the four, round-robin,
// then 429 with Retry-After from every instance; another key's budget is untouched. Runs when
// TEST_DATABASE_URL is set (and needs the machine's Redis, as the rate-limit e2e does).
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createApiKey } from '../../src/store/access/api-keys-store.js';
import { type Instance, sharedWorld } from '../support/ledger-world.js';
import { testDatabaseUrl } from '../support/test-databases.js';

const REDIS_URL = 'redis://127.0.0.1:6379';
const LIMIT = 10;
// Sliding window: with an empty previous window the count is exact however the clock falls.
const SHARED = ['--rate-limit-enabled', '--redis-url', REDIS_URL, '--rate-limit-algorithm', 'sliding'];

describe('four api instances share rate limits through Redis', {
  skip: testDatabaseUrl === undefined,
}, () => {
  const world = sharedWorld('limits');
  const instances: Instance[] = [];

  before(async () => {
    for (let i = 0; i < 4; i++) instances.push(await world.start('api', SHARED));
  });

  async function spend(key: string, requests: number): Promise<{ ok: number; limited: Response[] }> {
    let ok = 0;
    const limited: Response[] = [];
    for (let n = 0; n < requests; n++) {
      const url = instances[n % instances.length]!.url!;
      const res = await fetch(`${url}/v1/config`, { headers: { authorization: `Bearer ${key}` } });
      await res.arrayBuffer();
      if (res.status === 200) ok++;
      else if (res.status === 429) limited.push(res);
      else assert.fail(`unexpected ${res.status}`);
    }
    return { ok, limited };
  }

  it("spends one key's own limit once across the four, then 429 from each", async () => {
    const { db: store, masterKey } = instances[0]!.service.parts;
    const limited = await createApiKey(store, masterKey, {
      name: 'limited',
      scopes: ['read'],
      rateLimit: LIMIT,
    });
    const other = await createApiKey(store, masterKey, { name: 'other', scopes: ['read'], rateLimit: LIMIT });
    const first = await spend(limited.key, LIMIT + 6);
    assert.equal(first.ok, LIMIT, 'exactly the limit, counted once across the instances');
    assert.equal(first.limited.length, 6);
    for (const res of first.limited) {
      assert.ok(Number(res.headers.get('retry-after')) >= 1);
      assert.match(res.headers.get('ratelimit-policy') ?? '', new RegExp(`^"key";q=${LIMIT};w=\\d+$`));
    }
    const second = await spend(other.key, LIMIT);
    assert.equal(second.ok, LIMIT, "another key's budget is its own");
  });
});
