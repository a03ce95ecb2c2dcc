// The balance cache answers from memory only while the change feed has not moved; any new
// feed record (a submission, a failure) makes it read again, so no stale balance is served. On
// PostgreSQL a read is one round trip while the feed stands still (a look at the stamp) and while
// it moves (the stamp and the balances in one statement, not kept), and two for the first read
// after it stops (the feed's edge, then the balances, kept).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { KEPT_BALANCES } from '../../src/store/wallets/address-balances.js';
import { cachedBalanceReader } from '../../src/store/wallets/balance-cache.js';
import { balances } from '../../src/store/wallets/wallet-queries.js';
import { holdOpen, inside } from '../support/held-transaction.js';
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
      // PGlite stamps by its local write count, PostgreSQL by the score sequence: both paths run here.
      const counting: typeof db = {
        dialect: db.dialect,
        ...(db.localWrites !== undefined && { localWrites: db.localWrites }),
        transaction: (fn) => db.transaction(fn),
        close: () => db.close(),
        query: (sql, params) => {
          statements++;
          if (sql.includes(KEPT_BALANCES)) reads++; // balances(), alone or with the stamp
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
        assert.equal(await roundTrips(['alice', 'carol']), 2, 'the edge, then the balances, kept');
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

    it('never keeps balances read while a lower score is still open', {
      skip: target.name === 'pglite' && 'one transaction at a time: no writer is open while a read runs',
    }, async () => {
      const fresh = await target.fresh();
      disposers.push(fresh.dispose);
      const { db } = fresh;
      const read = cachedBalanceReader(db);
      await seedTransaction(db, { outputs: [{ owner: 'carol', amount: 1n }] });
      assert.equal((await read(['dave', 'erin'])).get('dave'), 0n, 'dave read, and kept, at 0');
      // A writer draws a score and stays open; another draws a higher one and commits first.
      const slow = holdOpen(db, (tx) =>
        seedTransaction(inside(db, tx), { outputs: [{ owner: 'dave', amount: 7n }] }),
      );
      await slow.ready;
      await seedTransaction(db, { outputs: [{ owner: 'erin', amount: 2n }] });
      for (let i = 0; i < 3; i++) {
        const answer = await read(['dave', 'erin']);
        assert.deepEqual(
          [...answer],
          [
            ['dave', 0n],
            ['erin', 2n],
          ],
          `read ${i} while the lower score is open`,
        );
      }
      slow.commit();
      await slow.ended;
      // Nothing drew since: only balances never kept under the higher score can show dave's 7.
      assert.equal(
        (await read(['dave', 'erin'])).get('dave'),
        7n,
        "the open writer's change, once committed",
      );
      assert.equal((await read(['dave', 'erin'])).get('dave'), 7n);
    });
  });
}
