// The funding lease pool's renewal (src/usecases/submit/funding-lease-pool.ts) renews the leases
// of the outputs it holds by their keys: the free ones and those taken for transfers not yet
// claimed. An output given back, or leased by a top-up, while a renewal's statement runs stays in
// the pool (the renewal forgets only what it asked about and lost); a taken output keeps its
// lease while its transfer takes longer than the lease it was taken with had left.
import assert from 'node:assert/strict';
import { after, before, describe, it, test } from 'node:test';
import type { Db } from '../../src/store/db/db.js';
import { openPgliteDb } from '../../src/store/db/pglite-db.js';
import { leaseFundingOutputs } from '../../src/store/funding/funding-leases.js';
import { migrate } from '../../src/store/migrate.js';
import { createFundingLeasePool } from '../../src/usecases/submit/funding-lease-pool.js';
import { eventually } from '../e2e/support.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { holdOpen } from '../support/held-transaction.js';
import { seedFundingOutputs } from '../support/seed-store.js';

const quiet = { info() {}, warn() {}, error() {} } as never;
const settings = { leaseMs: 60_000, keepEveryMs: 60_000, minLeased: 4, maxLeased: 64 };

/** `count` outputs of `satoshis` and up, each one more than the last. */
const addOutputs = (db: Db, count: number, satoshis: number) =>
  seedFundingOutputs(db, count, (vout) => satoshis + vout);

const leasedTo = async (db: Db, owner: string) =>
  Number(
    (
      await db.query<{ n: string }>(
        "SELECT count(*) AS n FROM funding_outputs WHERE lease_owner = $1 AND state = 'available'",
        [owner],
      )
    )[0]!.n,
  );

describe('funding lease renewal on the embedded database', () => {
  let db: Db;
  before(async () => {
    db = await openPgliteDb('memory');
    await migrate(db);
    await addOutputs(db, 40, 500);
  });
  after(() => db.close());

  it('an output given back while the renewal runs stays in the pool', async () => {
    const pool = createFundingLeasePool({ db, now: () => new Date(), log: quiet, settings });
    try {
      const out = await pool.take(100n);
      assert.ok(out !== null);
      await new Promise((r) => setTimeout(r, 50)); // any top-up settles
      const before = pool.size();
      assert.equal(await leasedTo(db, pool.owner), before + 1, 'the taken one is still leased to us');
      const renewing = pool.resync();
      pool.giveBack(out); // e.g. a transfer refused while the keeping tick's statement runs
      await renewing;
      assert.equal(await leasedTo(db, pool.owner), before + 1, 'the database still leases it to us');
      assert.equal(pool.size(), before + 1, 'the given-back output is in the pool again');
    } finally {
      await pool.close();
    }
  });

  it('keeps its lease while the pool renews the others', async () => {
    const pool = createFundingLeasePool({
      db,
      now: () => new Date(),
      log: quiet,
      settings: { leaseMs: 1500, keepEveryMs: 200, minLeased: 4, maxLeased: 64 },
    });
    try {
      const out = await pool.take(1n);
      assert.ok(out !== null);
      await new Promise((r) => setTimeout(r, 2500)); // the transfer is still screening/committing
      const others = await leaseFundingOutputs(
        db,
        { owner: 'other-process', now: new Date(), until: new Date(Date.now() + 60_000) },
        12,
      );
      assert.ok(pool.size() > 0, 'the keeper kept the free leases');
      assert.ok(
        !others.some((o) => o.txid === out.txid && o.vout === out.vout),
        'another process leased the output this pool has taken for a transfer in flight',
      );
    } finally {
      await pool.close();
    }
  });
});

describeOnEachDb('funding lease renewal, a top-up while it runs', { only: 'postgres' }, (fresh) => {
  test('every output leased to the pool is free or taken once both settle', async () => {
    const db = fresh.db;
    await addOutputs(db, 60, 500);
    const pool = createFundingLeasePool({ db, now: () => new Date(), log: quiet, settings });
    try {
      const taken = [(await pool.take(100n))!];
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(await leasedTo(db, pool.owner), pool.size() + 1);
      // The free leases are past half their life (the renewal must update them); one is locked
      // by another transaction, so the renewal statement waits.
      await db.query(
        "UPDATE funding_outputs SET lease_until = now() + interval '5 seconds' WHERE lease_owner = $1",
        [pool.owner],
      );
      const held = holdOpen(db, async (tx) => {
        await tx.query(
          `SELECT 1 FROM funding_outputs WHERE lease_owner = $1 AND NOT (txid = $2 AND vout = $3)
            ORDER BY txid, vout LIMIT 1 FOR UPDATE`,
          [pool.owner, taken[0]!.txid, taken[0]!.vout],
        );
      });
      await held.ready;
      const renewing = pool.resync();
      await new Promise((r) => setTimeout(r, 100));
      const before = await leasedTo(db, pool.owner);
      // Demand while the renewal waits: takes that start a top-up.
      for (let i = 0; i < 2; i++) taken.push((await pool.take(100n))!);
      await eventually(
        async () => ((await leasedTo(db, pool.owner)) > before ? true : undefined),
        'the top-up leased more',
      );
      await new Promise((r) => setTimeout(r, 100));
      const freeDuring = pool.size();
      held.commit();
      await held.ended;
      await renewing;
      const inDb = await leasedTo(db, pool.owner);
      assert.equal(
        inDb,
        pool.size() + taken.length,
        `leased to us in the database ${inDb}; free ${pool.size()} (before the renewal ended: ${freeDuring}); taken ${taken.length}`,
      );
    } finally {
      await pool.close();
    }
  });
});
