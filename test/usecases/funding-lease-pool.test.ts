// The funding lease pool (src/usecases/submit/funding-lease-pool.ts) on the embedded database: it
// leases in bulk ahead of demand, also after a top-up that found nothing to lease (a one-at-a-time
// guard that cleared itself too early once stopped every later top-up, and each transfer then
// leased its own output), gives back what it does not use, and ends its leases on close.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Db } from '../../src/store/db/db.js';
import { openPgliteDb } from '../../src/store/db/pglite-db.js';
import { migrate } from '../../src/store/migrate.js';
import { createFundingLeasePool } from '../../src/usecases/submit/funding-lease-pool.js';
import { seedFundingOutputs } from '../support/seed-store.js';

const quiet = { info() {}, warn() {}, error() {} };
const settings = { leaseMs: 60_000, keepEveryMs: 60_000, minLeased: 4, maxLeased: 64 };

const addOutputs = (db: Db, count: number, satoshis: number) => seedFundingOutputs(db, count, () => satoshis);

const leasedTo = async (db: Db, owner: string) =>
  Number(
    (
      await db.query<{ n: string }>('SELECT count(*) AS n FROM funding_outputs WHERE lease_owner = $1', [
        owner,
      ])
    )[0]!.n,
  );

describe('the funding lease pool', () => {
  let db: Db;
  before(async () => {
    db = await openPgliteDb('memory');
    await migrate(db);
  });
  after(() => db.close());

  it('answers null on an empty pool, then leases in bulk once outputs arrive', async () => {
    const pool = createFundingLeasePool({ db, now: () => new Date(), log: quiet, settings });
    try {
      assert.equal(await pool.take(100n), null);
      await addOutputs(db, 40, 500);
      const first = await pool.take(100n);
      assert.ok(first !== null);
      assert.ok(pool.size() > 0, 'more than the one taken was leased ahead of demand');
      assert.equal(await leasedTo(db, pool.owner), pool.size() + 1);
    } finally {
      await pool.close();
    }
  });

  it('takes the smallest output large enough, leases a larger one when none is, and takes back a given-back one', async () => {
    await db.query("UPDATE funding_outputs SET state = 'spent' WHERE state = 'available'");
    await addOutputs(db, 20, 300);
    await addOutputs(db, 1, 5000);
    const pool = createFundingLeasePool({ db, now: () => new Date(), log: quiet, settings });
    try {
      const small = await pool.take(200n);
      assert.equal(small?.satoshis, 300n);
      const large = await pool.take(4000n);
      assert.equal(large?.satoshis, 5000n);
      assert.equal(await pool.take(6000n), null);
      const before = pool.size();
      pool.giveBack(small!);
      assert.equal(pool.size(), before + 1);
    } finally {
      await pool.close();
    }
  });

  it('leases in bulk again after a top-up that had nothing to do', async () => {
    await db.query("UPDATE funding_outputs SET state = 'spent' WHERE state = 'available'");
    await addOutputs(db, 60, 300);
    const pool = createFundingLeasePool({ db, now: () => new Date(), log: quiet, settings });
    try {
      const first = (await pool.take(200n))!;
      pool.giveBack(first);
      assert.equal(pool.size(), settings.minLeased, 'as many leased as it wants');
      // Nothing leased is large enough: the top-up has nothing to lease (the pool holds what it
      // wants), and the transfer finds none.
      assert.equal(await pool.take(4000n), null);
      // The small ones are used up; the next take must top up in bulk, not lease one alone.
      for (let i = 0; i < settings.minLeased; i++) assert.ok(await pool.take(200n));
      assert.ok(await pool.take(200n));
      assert.ok(pool.size() > 0, 'a bulk top-up, not one output leased for one transfer');
    } finally {
      await pool.close();
    }
  });

  it('ends its leases on close', async () => {
    await addOutputs(db, 20, 400);
    const pool = createFundingLeasePool({ db, now: () => new Date(), log: quiet, settings });
    await pool.take(100n);
    assert.ok((await leasedTo(db, pool.owner)) > 0);
    await pool.close();
    assert.equal(await leasedTo(db, pool.owner), 0);
  });
});
