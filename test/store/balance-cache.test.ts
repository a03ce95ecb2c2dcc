// The balance cache answers from memory only while the change feed has not moved; any new
// feed record (a submission, a failure) makes it read again, so no stale balance is served. On
// PostgreSQL a read is one round trip in both regimes: a look at the stamp while the feed stands
// still, the stamp and the balances in one statement while it moves.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { cachedBalanceReader } from '../../src/store/wallets/balance-cache.js';
import { balances } from '../../src/store/wallets/wallet-queries.js';
import { restateTransaction, seedTransaction } from '../support/seed-store.js';
import { testTargets } from '../support/test-databases.js';

for (const target of testTargets()) {
  describe(`balance cache on ${target.name}`, () => {
    const disposers: (() => Promise<void>)[] = [];
    after(async () => {
      for (const d of disposers) await d();
    });

    it('serves cached balances until a feed change, then reads again', async () => {
      const fresh = await target.fresh();
      disposers.push(fresh.dispose);
      const { db } = fresh;
      let reads = 0;
      let statements = 0;
      // PGlite stamps by its local write count, PostgreSQL by max(score): both paths run here.
      const counting: typeof db = {
        dialect: db.dialect,
        ...(db.localWrites !== undefined && { localWrites: db.localWrites }),
        transaction: (fn) => db.transaction(fn),
        close: () => db.close(),
        query: (sql, params) => {
          statements++;
          if (sql.includes('address_balances')) reads++;
          return db.query(sql, params);
        },
      };
      const read = cachedBalanceReader(counting);
      const first = await seedTransaction(db, { outputs: [{ owner: 'alice', amount: 10n }] });
      assert.equal((await read(['alice', 'bob'])).get('alice'), 10n);
      assert.equal((await read(['alice', 'bob'])).get('alice'), 10n);
      assert.equal(reads, 1, 'the second read is served from memory');

      await seedTransaction(db, { spends: [`${first.txid}_0`], outputs: [{ owner: 'bob', amount: 10n }] });
      const after = await read(['alice', 'bob']);
      assert.equal(reads, 2, 'a feed change makes it read again');
      assert.deepEqual([...after], [...(await balances(db, ['alice', 'bob']))]);
      assert.deepEqual(
        [...after],
        [
          ['alice', 0n],
          ['bob', 10n],
        ],
      );

      await restateTransaction(db, first.txid, 'failed');
      await read(['alice']);
      assert.equal(reads, 3, 'a restated record (new score) makes it read again');

      if (db.localWrites === undefined) {
        // Round trips per read on PostgreSQL (PGlite's stamp needs none).
        const roundTrips = async (addresses: string[]) => {
          const before = statements;
          const answer = await read(addresses);
          assert.deepEqual([...answer], [...(await balances(db, addresses))], 'never stale');
          return statements - before;
        };
        const second = await seedTransaction(db, { outputs: [{ owner: 'carol', amount: 5n }] });
        assert.equal(await roundTrips(['alice', 'carol']), 1, 'moving: stamp and balances at once');
        assert.equal(await roundTrips(['alice', 'carol']), 1, 'that read found it still');
        const readsBefore = reads;
        assert.equal(await roundTrips(['alice', 'carol']), 1, 'still: one look at the stamp');
        assert.equal(reads, readsBefore, 'and the balances from memory');
        await seedTransaction(db, {
          spends: [`${second.txid}_0`],
          outputs: [{ owner: 'alice', amount: 5n }],
        });
        assert.equal(await roundTrips(['alice', 'carol']), 2, 'the look finds it moved, then reads');
        await seedTransaction(db, { outputs: [{ owner: 'carol', amount: 1n }] });
        assert.equal(await roundTrips(['alice', 'carol']), 1, 'still moving: no look first');
      }
    });
  });
}
