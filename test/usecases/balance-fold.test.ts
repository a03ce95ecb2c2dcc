// The balance folder: folds pending balance changes on its own, writes nothing while nothing is
// pending (on PGlite a write empties the balance cache), logs a failed fold and goes on, and
// stop() waits for a fold under way.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Db } from '../../src/store/db/db.js';
import { balanceChangesPending } from '../../src/store/wallets/address-balances.js';
import { balances } from '../../src/store/wallets/wallet-queries.js';
import { startBalanceFolder } from '../../src/usecases/wallets/balance-fold.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { seedTransaction } from '../support/seed-store.js';

const quiet = { error: () => undefined };
const waitFor = async (what: string, ok: () => Promise<boolean>, ms = 5_000) => {
  const until = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

// PGlite only: its local write count shows that an idle folder writes nothing.
describeOnEachDb('balance folder', { only: 'pglite' }, (fresh) => {
  test('folds what is pending on its own, then writes nothing while nothing is pending', async () => {
    const { db } = fresh;
    await seedTransaction(db, { senders: [], outputs: [{ owner: 'ann', amount: 3n }] });
    await seedTransaction(db, { senders: [], outputs: [{ owner: 'ann', amount: 4n }] });
    assert.equal(await balanceChangesPending(db), true);
    const folder = startBalanceFolder({ db, log: quiet }, 10);
    try {
      await waitFor('the fold', async () => !(await balanceChangesPending(db)));
      assert.deepStrictEqual(await balances(db, ['ann']), new Map([['ann', 7n]]));
      const writes = db.localWrites!();
      await new Promise((r) => setTimeout(r, 60)); // several ticks
      assert.equal(db.localWrites!(), writes, 'an idle folder writes nothing');
    } finally {
      await folder.stop();
    }
  });

  test('a failed fold is logged and the next one goes on; stop() waits for the one under way', async () => {
    const { db } = fresh;
    const errors: unknown[] = [];
    let failNext = true;
    const failing: Db = {
      ...db,
      query: (sql, params) => {
        if (failNext && sql.includes('DELETE FROM address_balance_changes')) {
          failNext = false;
          return Promise.reject(new Error('connection lost'));
        }
        return db.query(sql, params);
      },
    };
    await seedTransaction(db, { senders: [], outputs: [{ owner: 'bob', amount: 5n }] });
    const folder = startBalanceFolder(
      { db: failing, log: { error: (o: unknown) => errors.push(o) } },
      10_000,
    );
    try {
      assert.equal(await folder.foldNow(), 0, 'the failed fold moved nothing');
      assert.equal(errors.length, 1);
      assert.equal(await balanceChangesPending(db), true);
      const under = folder.foldNow();
      await folder.stop();
      assert.ok((await under) >= 1, 'the fold under way finished before stop() returned');
      assert.equal(await balanceChangesPending(db), false);
      assert.deepStrictEqual(await balances(db, ['bob']), new Map([['bob', 5n]]));
    } finally {
      await folder.stop();
    }
  });
});
