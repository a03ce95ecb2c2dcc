// A transfer that finds the funding pool dry waits a bounded time for the keeper's refill
// rather than being refused at once: it gets an output when a refill lands within the wait
// (heard of in this process, or read from the store when the keeper runs elsewhere), and null
// when none does, after about the wait.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Db } from '../../src/store/db/db.js';
import { openPgliteDb } from '../../src/store/db/pglite-db.js';
import { migrate } from '../../src/store/migrate.js';
import { fundingSignalOf } from '../../src/usecases/funding/funding-signal.js';
import { createFundingLeasePool } from '../../src/usecases/submit/funding-lease-pool.js';
import { seedFundingOutputs } from '../support/seed-store.js';

const quiet = { info() {}, warn() {}, error() {} };
const settings = { leaseMs: 60_000, keepEveryMs: 60_000, minLeased: 4, maxLeased: 64, refillWaitMs: 1500 };

const addOutputs = (db: Db, count: number) => seedFundingOutputs(db, count, () => 500);

describe('a transfer waiting for a refill', () => {
  let db: Db;
  before(async () => {
    db = await openPgliteDb('memory');
    await migrate(db);
  });
  after(() => db.close());

  it('gets an output from a refill signalled while it waits, and tells the keeper it waits', async () => {
    const pool = createFundingLeasePool({ db, now: () => new Date(), log: quiet, settings });
    let told = 0;
    const unlisten = fundingSignalOf(db).onUsed(() => told++);
    try {
      const started = Date.now();
      const taking = pool.take(100n);
      setTimeout(() => {
        void addOutputs(db, 10).then(() => fundingSignalOf(db).refilled());
      }, 300);
      const output = await taking;
      assert.ok(output !== null, 'the refill served the waiting transfer');
      assert.ok(Date.now() - started < 1200, 'without waiting out the whole wait');
      assert.ok(told >= 1, 'the keeper was told');
    } finally {
      unlisten();
      await pool.close();
    }
  });

  it('gets an output from a refill it reads in the store (a keeper elsewhere, no signal)', async () => {
    await db.query("UPDATE funding_outputs SET state = 'spent' WHERE state = 'available'");
    const pool = createFundingLeasePool({ db, now: () => new Date(), log: quiet, settings });
    try {
      const taking = pool.take(100n);
      setTimeout(() => void addOutputs(db, 10), 300);
      assert.ok((await taking) !== null);
    } finally {
      await pool.close();
    }
  });

  it('is refused (null) after about the wait when no refill comes', async () => {
    await db.query("UPDATE funding_outputs SET state = 'spent' WHERE state = 'available'");
    const pool = createFundingLeasePool({ db, now: () => new Date(), log: quiet, settings });
    try {
      const started = Date.now();
      assert.equal(await pool.take(100n), null);
      const waited = Date.now() - started;
      assert.ok(waited >= 1400 && waited < 3000, `waited ${waited} ms`);
    } finally {
      await pool.close();
    }
  });
});
