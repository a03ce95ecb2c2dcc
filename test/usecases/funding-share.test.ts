// One API key's share of a low funding pool (src/usecases/submit/funding-share.ts; issue 29: one
// submit key drained the pool and every wallet got 503). While the pool is healthy no key is
// bound; once it is below its low-water mark, the key that took at least its share of the
// window's outputs is refused 429 FUNDING_SHARE_EXCEEDED, and the others are not.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DomainError } from '../../src/domain/domain-error.js';
import type { Queryable } from '../../src/store/db/db.js';
import { createFundingShare, FLOOR, WINDOW_MS } from '../../src/usecases/submit/funding-share.js';

function world(available: number, sharePercent = 50) {
  const pool = { available };
  let now = 1_000_000;
  const db = { query: async () => [{ n: String(pool.available) }] } as unknown as Queryable;
  const share = createFundingShare({ db, settings: { sharePercent, lowWater: 100 }, nowMs: () => now });
  const take = (key: string | null, n: number) => {
    for (let i = 0; i < n; i++) share.took(key);
  };
  const refused = async (key: string | null) => {
    try {
      await share.admit(key);
      return false;
    } catch (err) {
      assert.ok(err instanceof DomainError && err.code === 'FUNDING_SHARE_EXCEEDED', String(err));
      return true;
    }
  };
  return { pool, share, take, refused, later: (ms: number) => (now += ms) };
}

describe("one key's share of the funding pool", () => {
  it('binds nobody while the pool is above its low-water mark', async () => {
    const w = world(470);
    w.take('flooder', 250);
    assert.equal(await w.refused('flooder'), false);
  });

  it('refuses the key that took most of a low pool, not the others (the attack of issue 29)', async () => {
    const w = world(40);
    w.take('flooder', 250);
    w.take('merchant', 3);
    assert.equal(await w.refused('flooder'), true, 'the flooder waits for the refill');
    assert.equal(await w.refused('merchant'), false, 'the merchant goes on');
    assert.equal(await w.refused('a-new-wallet'), false);
    w.take(null, 500);
    assert.equal(await w.refused(null), false, "no key (the operator's mints, the sandbox token): not bound");
    assert.equal(await w.refused('flooder'), true, 'nor counted in the others’ total');
  });

  it('a lone key draining a low pool is refused too, after its floor', async () => {
    const w = world(10);
    w.take('alone', FLOOR - 1);
    assert.equal(await w.refused('alone'), false, 'under the floor');
    w.take('alone', 1);
    assert.equal(await w.refused('alone'), true);
  });

  it('forgets takes older than the window, and sees the pool refilled', async () => {
    const w = world(10);
    w.take('flooder', 50);
    assert.equal(await w.refused('flooder'), true);
    w.later(WINDOW_MS + 1);
    assert.equal(await w.refused('flooder'), false, 'its takes have aged out');
    w.take('flooder', 50);
    w.pool.available = 470;
    w.later(600);
    assert.equal(await w.refused('flooder'), false, 'the pool was refilled');
  });

  it('a share of 100% binds nobody', async () => {
    const w = world(0, 100);
    w.take('flooder', 1_000);
    assert.equal(await w.refused('flooder'), false);
  });
});
