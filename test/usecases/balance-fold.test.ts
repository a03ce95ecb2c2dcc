// The balance folder: folds the kept balance rows of connections that have ended into backend 0
// on its own, leaves those of live connections where they are, writes nothing while no
// connection with rows has ended (on PGlite a write empties the balance cache), logs a failed
// fold and goes on, and stop() waits for a fold under way. PGlite's one connection never ends:
// there an ended connection is made by moving its rows to a process id that no connection has.
// On PostgreSQL, connections that really ended are folded.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Db, Queryable } from '../../src/store/db/db.js';
import { openPostgresDb } from '../../src/store/db/postgres-db.js';
import { balancePartsEnded, keptBalanceDrift } from '../../src/store/wallets/address-balances.js';
import { keptTotalDrift } from '../../src/store/wallets/kept-supply.js';
import { balances } from '../../src/store/wallets/wallet-queries.js';
import { startBalanceFolder } from '../../src/usecases/wallets/balance-fold.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { backendPid } from '../support/held-transaction.js';
import { seedTransaction } from '../support/seed-store.js';
import { testDatabaseUrl } from '../support/test-databases.js';

const quiet = { error: () => undefined };
const waitFor = async (what: string, ok: () => Promise<boolean>, ms = 5_000) => {
  const until = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

/** A process id no connection has (a pid stays below 2^22 on Linux). */
const ENDED = 2_000_000_000;

/**
 * PGlite's one connection "ends": its balance and total rows move to process id `pid`, as they
 * would be left by a connection that has gone (no sum moves).
 */
async function endTheConnection(q: Queryable, pid: number): Promise<void> {
  await q.query('UPDATE address_balance_parts SET backend = $1 WHERE backend = pg_backend_pid()', [pid]);
  await q.query('UPDATE balance_total_parts SET backend = $1 WHERE backend = pg_backend_pid()', [pid]);
}

/** The backends holding rows of `owner`'s balance, in order. */
async function backendsOf(q: Queryable, owner: string): Promise<number[]> {
  const rows = await q.query<{ backend: number }>(
    'SELECT backend FROM address_balance_parts WHERE owner = $1 ORDER BY backend',
    [owner],
  );
  return rows.map((r) => r.backend);
}

// PGlite only: its local write count shows that an idle folder writes nothing.
describeOnEachDb('balance folder', { only: 'pglite' }, (fresh) => {
  test('folds the rows of an ended connection on its own, then writes nothing while none has ended', async () => {
    const { db } = fresh;
    await seedTransaction(db, { senders: [], outputs: [{ owner: 'ann', amount: 3n }] });
    await seedTransaction(db, { senders: [], outputs: [{ owner: 'ann', amount: 4n }] });
    const pid = await backendPid(db);
    assert.deepStrictEqual(await backendsOf(db, 'ann'), [pid], "the live connection's row");
    assert.equal(await balancePartsEnded(db), false, 'the live connection has not ended');
    await endTheConnection(db, ENDED);
    assert.equal(await balancePartsEnded(db), true);
    const folder = startBalanceFolder({ db, log: quiet }, 10);
    try {
      await waitFor('the fold', async () => !(await balancePartsEnded(db)));
      assert.deepStrictEqual(await backendsOf(db, 'ann'), [0], 'folded into backend 0');
      const totals = await db.query<{ backend: number }>('SELECT backend FROM balance_total_parts');
      assert.deepStrictEqual(totals, [{ backend: 0 }], 'the total too');
      assert.deepStrictEqual(await balances(db, ['ann']), new Map([['ann', 7n]]));

      // A write of the live connection: its row stays, and the folder writes nothing.
      await seedTransaction(db, { senders: [], outputs: [{ owner: 'ann', amount: 5n }] });
      const writes = db.localWrites!();
      await new Promise((r) => setTimeout(r, 60)); // several ticks
      assert.equal(db.localWrites!(), writes, 'an idle folder writes nothing');
      assert.deepStrictEqual(await backendsOf(db, 'ann'), [0, pid], "the live connection's row is left");
      assert.deepStrictEqual(await balances(db, ['ann']), new Map([['ann', 12n]]));
      assert.equal(await keptTotalDrift(db), null);
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
        // The fold's statement (the check before it only reads).
        if (failNext && sql.includes('DELETE FROM address_balance_parts')) {
          failNext = false;
          return Promise.reject(new Error('connection lost'));
        }
        return db.query(sql, params);
      },
    };
    await seedTransaction(db, { senders: [], outputs: [{ owner: 'bob', amount: 5n }] });
    await endTheConnection(db, ENDED + 1);
    const [ended] = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM address_balance_parts WHERE backend = $1',
      [ENDED + 1],
    );
    assert.ok(ended!.n >= 1);
    const folder = startBalanceFolder(
      { db: failing, log: { error: (o: unknown) => errors.push(o) } },
      10_000,
    );
    try {
      assert.equal(await folder.foldNow(), 0, 'the failed fold moved nothing');
      assert.equal(errors.length, 1);
      assert.equal(failNext, false, 'the fold was tried');
      assert.equal(await balancePartsEnded(db), true);
      assert.deepStrictEqual(await backendsOf(db, 'bob'), [ENDED + 1]);
      const under = folder.foldNow();
      await folder.stop();
      assert.equal(
        await under,
        ended!.n,
        'the fold under way finished before stop() returned: the ended rows',
      );
      assert.equal(await balancePartsEnded(db), false);
      assert.deepStrictEqual(await backendsOf(db, 'bob'), [0]);
      assert.deepStrictEqual(await balances(db, ['bob']), new Map([['bob', 5n]]));
      assert.equal(errors.length, 1);
    } finally {
      await folder.stop();
    }
  });
});

describeOnEachDb('balance folder', { only: 'postgres' }, (fresh) => {
  test('folds the rows of connections that ended, balances and total unmoved', async () => {
    const { db } = fresh;
    const writers = await Promise.all(
      [0, 1].map(() => openPostgresDb(testDatabaseUrl!, { schema: fresh.schema!, max: 1 })),
    );
    let pids: number[];
    try {
      for (const w of writers) {
        await seedTransaction(w, { senders: [], outputs: [{ owner: 'carol', amount: 10n }] });
        await seedTransaction(w, { senders: [], outputs: [{ owner: 'dave', amount: 1n }] });
      }
      pids = await Promise.all(writers.map(backendPid));
      for (const owner of ['carol', 'dave'])
        assert.deepStrictEqual(
          await backendsOf(db, owner),
          [...pids].sort((a, b) => a - b),
          `a row of ${owner}'s per connection`,
        );
    } finally {
      await Promise.all(writers.map((w) => w.close()));
    }
    const before = await balances(db, ['carol', 'dave']);
    assert.deepStrictEqual(
      before,
      new Map([
        ['carol', 20n],
        ['dave', 2n],
      ]),
    );
    const folder = startBalanceFolder({ db, log: quiet }, 20);
    try {
      // A connection's end reaches pg_stat_activity a moment after its client closed it.
      await waitFor(
        'the fold of both connections',
        async () => {
          const left = await db.query(
            `SELECT 1 FROM address_balance_parts WHERE backend = ANY($1::int[])
             UNION ALL SELECT 1 FROM balance_total_parts WHERE backend = ANY($1::int[])`,
            [pids],
          );
          return left.length === 0;
        },
        10_000,
      );
    } finally {
      await folder.stop();
    }
    assert.deepStrictEqual(await backendsOf(db, 'carol'), [0]);
    assert.deepStrictEqual(await backendsOf(db, 'dave'), [0]);
    assert.deepStrictEqual(await balances(db, ['carol', 'dave']), before, 'the balances did not move');
    assert.equal(await keptTotalDrift(db), null, 'nor the total');
    assert.deepStrictEqual(await keptBalanceDrift(db), []);
    assert.equal(await balancePartsEnded(db), false);
  });
});
