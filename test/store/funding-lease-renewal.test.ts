// Renewing funding leases (src/store/funding/funding-leases.ts): only the leases named that end
// before the renewal point are written (a renewal of every lease at every tick was one to two row
// writes a transfer), and every output named that the owner still holds is answered, renewed or
// not; one it lost (taken by another owner after it lapsed, or spent) is not. On PostgreSQL,
// leasing, renewing and giving back are HOT updates (migration 049).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Queryable } from '../../src/store/db/db.js';
import {
  leaseFundingOutputs,
  releaseFundingLeases,
  releaseSomeFundingLeases,
  renewFundingLeases,
} from '../../src/store/funding/funding-leases.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { seedFundingOutputs } from '../support/seed-store.js';

const now = new Date('2026-01-01T00:00:00Z');
const at = (ms: number) => new Date(now.getTime() + ms);

/** Eight available funding outputs of one transaction, no lease. */
const eightAvailableOutputs = (db: Queryable) => seedFundingOutputs(db, 8, () => 1000);

describeOnEachDb('funding lease renewal', (fresh) => {
  test('writes only the leases ending before the renewal point, answers all still held', async () => {
    const { db } = fresh;
    await eightAvailableOutputs(db);
    const leased = await leaseFundingOutputs(db, { owner: 'a', now, until: at(60_000) }, 8);
    assert.equal(leased.length, 3); // a quarter of the free outputs, plus one
    // One lease near its end, the other fresh.
    await db.query('UPDATE funding_outputs SET lease_until = $1 WHERE txid = $2 AND vout = $3', [
      at(10_000),
      leased[0]!.txid,
      leased[0]!.vout,
    ]);
    const xmin = async () =>
      (
        await db.query<{ vout: number; x: string }>(
          "SELECT vout, xmin::text AS x FROM funding_outputs WHERE lease_owner = 'a' ORDER BY vout",
        )
      ).map((r) => `${r.vout}:${r.x}`);
    const before = await xmin();
    const held = await renewFundingLeases(db, 'a', leased, at(70_000), at(30_000));
    assert.deepEqual([...held].sort(), leased.map((o) => `${o.txid}_${o.vout}`).sort());
    const after = await xmin();
    const changed = after.filter((row) => !before.includes(row));
    assert.deepEqual(changed.length, 1, `one row written: ${before} -> ${after}`);
    const until = await db.query<{ vout: number; until: Date }>(
      "SELECT vout, lease_until AS until FROM funding_outputs WHERE lease_owner = 'a' ORDER BY vout",
    );
    const byVout = new Map(until.map((r) => [r.vout, new Date(r.until).getTime()]));
    assert.equal(byVout.get(leased[0]!.vout), at(70_000).getTime(), 'the lease near its end renewed');
    assert.equal(byVout.get(leased[1]!.vout), at(60_000).getTime(), 'the fresh lease left alone');

    // A lost lease (spent meanwhile) is not answered.
    await db.query("UPDATE funding_outputs SET state = 'spent' WHERE txid = $1 AND vout = $2", [
      leased[1]!.txid,
      leased[1]!.vout,
    ]);
    const still = await renewFundingLeases(db, 'a', leased, at(80_000), at(30_000));
    assert.deepEqual([...still].sort(), [leased[0]!, leased[2]!].map((o) => `${o.txid}_${o.vout}`).sort());
  });
});

describeOnEachDb('funding lease writes', { only: 'postgres' }, (fresh) => {
  test('leasing, renewing and giving back are HOT updates', async () => {
    const { db } = fresh;
    await eightAvailableOutputs(db);
    const counts = await db.transaction(async (tx) => {
      const leased = await leaseFundingOutputs(tx, { owner: 'hot', now, until: at(60_000) }, 8);
      await renewFundingLeases(tx, 'hot', leased, at(70_000), at(90_000));
      await releaseSomeFundingLeases(tx, 'hot', leased.slice(0, 1));
      await releaseFundingLeases(tx, 'hot');
      const [row] = await tx.query<{ updated: number; hot: number }>(
        `SELECT pg_stat_get_xact_tuples_updated('funding_outputs'::regclass)::int AS updated,
                pg_stat_get_xact_tuples_hot_updated('funding_outputs'::regclass)::int AS hot`,
      );
      return { leased: leased.length, ...row! };
    });
    assert.ok(counts.leased >= 2);
    assert.equal(counts.updated, 3 * counts.leased, 'each leased, renewed and given back once');
    assert.equal(counts.hot, counts.updated, 'every one of them HOT');
  });
});
