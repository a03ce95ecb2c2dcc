// Balances kept per address, a row per owner and connection (migrations 012 and 048): whatever
// writes token_outputs, the kept balance (the sum of the owner's rows) equals the sum of the
// owner's spendable outputs, before and after folds; the opening balances of a database made
// before 012 are right; on PostgreSQL, a connection's later changes to an owner are HOT updates of
// its one row, the rows of ended connections fold into backend 0 with no balance moving, a fold
// never waits for a writer, and writers of several connections touching shared owners in opposite
// orders never deadlock and lose no change while folds run beside them.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Db, Queryable } from '../../src/store/db/db.js';
import { openPostgresDb } from '../../src/store/db/postgres-db.js';
import { migrate, migrationsDir } from '../../src/store/migrate.js';
import {
  balancePartsEnded,
  foldEndedBalanceParts,
  keptBalanceDrift,
} from '../../src/store/wallets/address-balances.js';
import { balances } from '../../src/store/wallets/wallet-queries.js';
import { eventually } from '../e2e/support.js';
import { prng } from '../support/client-fixtures.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { holdOpen } from '../support/held-transaction.js';
import { randomTxid, releaseReservation, seedTicket, seedTransaction } from '../support/seed-store.js';
import { testDatabaseUrl } from '../support/test-databases.js';

const OWNERS = ['ann', 'bob', 'cat', 'dan', 'eve'];

/** The owners' balances summed from their outputs, the way balances were read before 012. */
async function summed(q: Queryable, owners: readonly string[]): Promise<Map<string, bigint>> {
  const result = new Map(owners.map((o) => [o, 0n]));
  const rows = await q.query<{ owner: string; total: string }>(
    `SELECT owner, sum(amount)::text AS total FROM token_outputs
      WHERE owner = ANY($1::text[]) AND spent_by IS NULL AND reserved_by IS NULL AND op <> 'burn'
      GROUP BY owner`,
    [owners],
  );
  for (const row of rows) result.set(row.owner, BigInt(row.total));
  return result;
}

describeOnEachDb('balances kept per address', (fresh) => {
  test('a random history of spends, reservations, failures, burns and folds: kept = summed at every step', async () => {
    const db = fresh.db;
    const random = prng(20_261_126);
    const pick = (n: number) => Math.floor(random() * n);
    const spendable: string[] = []; // outpoints the history may spend
    const amountOf = new Map<string, bigint>();
    const genesis = await seedTransaction(db, {
      senders: [],
      outputs: OWNERS.map((owner, i) => ({ owner, amount: 2n ** 70n + BigInt(i) })),
    });
    spendable.push(...genesis.outpoints);
    let folds = 0;
    for (let step = 0; step < 60; step++) {
      const kind = pick(6);
      if (kind === 5) {
        await foldEndedBalanceParts(db);
        folds++;
      } else if (spendable.length > 0) {
        const input = spendable.splice(pick(spendable.length), 1)[0]!;
        const ticket = kind >= 2 ? await seedTicket(db, { status: 'BROADCASTING' }) : undefined;
        const outputs = [
          { owner: OWNERS[pick(OWNERS.length)]!, amount: BigInt(1 + pick(1_000)), op: 'transfer' as const },
          {
            owner: OWNERS[pick(OWNERS.length)]!,
            amount: BigInt(pick(3)),
            op: pick(4) === 0 ? ('burn' as const) : ('transfer' as const),
          },
        ];
        const t = await seedTransaction(db, {
          spends: [input],
          ...(ticket === undefined ? {} : { ticketId: ticket }),
          outputs: [...outputs],
        });
        if (kind === 3 && ticket !== undefined) {
          // Failed: its inputs released, its outputs deleted (the verdicts' write).
          await db.query(
            'UPDATE token_outputs SET spent_by = NULL, reserved_by = NULL WHERE reserved_by = $1',
            [ticket],
          );
          await db.query('DELETE FROM transactions WHERE txid = $1', [t.txid]); // cascades to its outputs
          spendable.push(input);
        } else {
          if (kind === 4 && ticket !== undefined) await releaseReservation(db, ticket); // mined
          t.outpoints.forEach((o, i) => {
            if (outputs[i]!.op !== 'burn') spendable.push(o);
            amountOf.set(o, outputs[i]!.amount);
          });
        }
      }
      assert.deepStrictEqual(await balances(db, OWNERS), await summed(db, OWNERS), `step ${step}`);
      assert.deepStrictEqual(await keptBalanceDrift(db), [], `step ${step}`);
    }
    assert.ok(folds >= 3, `folds ran (${folds})`);
  });

  test("an ended connection's rows fold into backend 0 and no balance moves with them", async () => {
    const db = fresh.db;
    await seedTransaction(db, { senders: [], outputs: [{ owner: 'fold-me', amount: 7n }] });
    await seedTransaction(db, { senders: [], outputs: [{ owner: 'fold-too', amount: 3n }] });
    // Their rows as a connection that has ended (no live backend has this pid) would have left them.
    await db.query(
      "UPDATE address_balance_parts SET backend = 2147483000 WHERE owner IN ('fold-me', 'fold-too')",
    );
    await db.query(
      `INSERT INTO balance_total_parts AS t (backend, total) VALUES (2147483000, 10), (0, -10)
       ON CONFLICT (backend) DO UPDATE SET total = t.total + EXCLUDED.total`,
    );
    assert.deepStrictEqual(await keptBalanceDrift(db), []);
    assert.equal(await balancePartsEnded(db), true);
    const before = await balances(db, ['fold-me', 'fold-too']);
    assert.deepStrictEqual(
      before,
      new Map([
        ['fold-me', 7n],
        ['fold-too', 3n],
      ]),
    );
    assert.equal(await foldEndedBalanceParts(db), 2);
    assert.equal(await balancePartsEnded(db), false);
    assert.deepStrictEqual(await balances(db, ['fold-me', 'fold-too']), before);
    const rows = await db.query<{ owner: string; backend: number }>(
      "SELECT owner, backend FROM address_balance_parts WHERE owner IN ('fold-me', 'fold-too') ORDER BY owner",
    );
    assert.deepStrictEqual(rows, [
      { owner: 'fold-me', backend: 0 },
      { owner: 'fold-too', backend: 0 },
    ]);
    const [total] = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM balance_total_parts WHERE backend = 2147483000',
    );
    assert.equal(total?.n, 0, "the ended connection's total row folded too");
    assert.deepStrictEqual(await keptBalanceDrift(db), []);
    assert.equal(await foldEndedBalanceParts(db), 0, 'nothing left to fold');
  });

  test('balance rows of an ended connection with no total row are folded too', async () => {
    const db = fresh.db;
    await seedTransaction(db, { senders: [], outputs: [{ owner: 'orphan', amount: 9n }] });
    await db.query("UPDATE address_balance_parts SET backend = 2147483002 WHERE owner = 'orphan'");
    assert.equal(await balancePartsEnded(db), true);
    assert.equal(await foldEndedBalanceParts(db), 1);
    assert.equal(await balancePartsEnded(db), false);
    assert.deepStrictEqual(await balances(db, ['orphan']), new Map([['orphan', 9n]]));
    assert.deepStrictEqual(await keptBalanceDrift(db), []);
  });

  test('the audit check sees a change written around the triggers', async () => {
    const db = fresh.db;
    await db.query("INSERT INTO address_balance_parts (owner, backend, balance) VALUES ('ghost', 0, 5)");
    assert.deepStrictEqual(await keptBalanceDrift(db), [{ address: 'ghost', kept: 5n, summed: 0n }]);
    await db.query("DELETE FROM address_balance_parts WHERE owner = 'ghost'");
    assert.deepStrictEqual(await keptBalanceDrift(db), []);
  });

  test("docs/operations.md's rebuild of the kept balances mends a drift", async () => {
    const db = fresh.db;
    const docs = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
    const rebuild = /To rebuild the kept\sbalances[\s\S]*?```sql\n([\s\S]*?)```/.exec(docs)?.[1] ?? '';
    assert.ok(rebuild?.includes('INSERT INTO address_balance_parts'), 'the rebuild is in the docs');
    await seedTransaction(db, { senders: [], outputs: [{ owner: 'mended', amount: 11n }] });
    await db.query("INSERT INTO address_balance_parts (owner, backend, balance) VALUES ('ghost-2', 0, 3)");
    await db.query("INSERT INTO address_balance_parts (owner, backend, balance) VALUES ('mended', 7, 1)");
    assert.equal((await keptBalanceDrift(db)).length, 2);
    await db.query(rebuild);
    assert.deepStrictEqual(await keptBalanceDrift(db), []);
    assert.deepStrictEqual(
      await balances(db, ['mended', 'ghost-2']),
      new Map([
        ['mended', 11n],
        ['ghost-2', 0n],
      ]),
    );
  });
});

describeOnEachDb('migration 012', { migrate: false }, (fresh) => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'tokenproxy-migrations-'));
    for (const name of readdirSync(migrationsDir()))
      if (name.endsWith('.sql') && name < '012') copyFileSync(join(migrationsDir(), name), join(dir, name));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("opening balances: each owner's spendable sum when 012 is applied, carried over by 048", async () => {
    const db = fresh.db;
    await migrate(db, { dir });
    const genesis = await seedTransaction(db, {
      senders: [],
      outputs: [
        { owner: 'ann', amount: 100n },
        { owner: 'bob', amount: 2n ** 80n },
        { owner: 'ann', amount: 3n, op: 'burn' },
      ],
    });
    const ticket = await seedTicket(db, { status: 'BROADCASTING' });
    await seedTransaction(db, {
      spends: [genesis.outpoints[0]!],
      ticketId: ticket,
      outputs: [
        { owner: 'cat', amount: 60n },
        { owner: 'ann', amount: 40n },
      ],
    });
    const { applied } = await migrate(db);
    assert.deepStrictEqual(applied.slice(0, 2), ['012_address_balances', '013_balance_changes_key']);
    assert.ok(applied.includes('048_balances_kept_per_connection'));
    const rows = await db.query<{ owner: string; balance: string }>(
      'SELECT owner, balance::text AS balance FROM address_balance_parts WHERE backend = 0 ORDER BY owner',
    );
    assert.deepStrictEqual(rows, [
      { owner: 'ann', balance: '40' },
      { owner: 'bob', balance: (2n ** 80n).toString() },
      { owner: 'cat', balance: '60' },
    ]);
    assert.deepStrictEqual(await keptBalanceDrift(db), []);
  });
});

describeOnEachDb('balances kept per address, several connections', { only: 'postgres' }, (fresh) => {
  const WRITERS = 4;
  const EACH = 25;
  let pools: Db[] = [];
  before(async () => {
    pools = await Promise.all(
      Array.from({ length: WRITERS }, () =>
        openPostgresDb(testDatabaseUrl!, { schema: fresh.schema!, max: 2 }),
      ),
    );
  });
  after(async () => {
    await Promise.all(pools.map((p) => p.close()));
    pools = [];
  });

  let score = 10_000_000n;
  /** A transaction record (no score lock: the writers must be free to interleave). */
  const record = async (tx: Queryable, txid: string) =>
    tx.query(
      `INSERT INTO transactions (txid, raw_tx, senders, receivers, outs, state, height, idx, blk_hash, blk_time, score)
       VALUES ($1, $2, '{}', '{}', '{}', 'unconfirmed', 0, 0, '', 0, $3)`,
      [txid, new Uint8Array(randomBytes(40)), ++score],
    );
  const output = (tx: Queryable, txid: string, vout: number, owner: string, amount: bigint) =>
    tx.query(
      `INSERT INTO token_outputs (txid, vout, owner, amount, op, script, satoshis, score)
       VALUES ($1, $2, $3, $4, 'transfer', '\\x76a9', 1, 0)`,
      [txid, vout, owner, amount],
    );

  test("a connection's later changes to an owner are HOT updates of its one row", async () => {
    const hot = await fresh.db.transaction(async (tx) => {
      for (let i = 0; i < 6; i++) {
        const txid = randomTxid();
        await record(tx, txid);
        await output(tx, txid, 0, 'one-row', 2n);
      }
      const [row] = await tx.query<{ hot: number }>(
        "SELECT pg_stat_get_xact_tuples_hot_updated('address_balance_parts'::regclass)::int AS hot",
      );
      return row!.hot;
    });
    const [rows] = await fresh.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM address_balance_parts WHERE owner = 'one-row'",
    );
    assert.equal(rows?.n, 1, 'one row for the owner and the connection');
    assert.equal(hot, 5, 'every change after the first a HOT update');
    assert.deepStrictEqual(await balances(fresh.db, ['one-row']), new Map([['one-row', 12n]]));
  });

  test('writers touching shared owners in opposite orders, folds beside them: no deadlock, nothing lost', async () => {
    // Each writer spends outputs of its own and pays the two shared owners, one statement each,
    // in an order that alternates, pausing between them: shared balance rows updated in place
    // would take their locks in opposite orders and deadlock.
    const own: string[][] = [];
    for (let w = 0; w < WRITERS; w++) {
      const txid = randomTxid();
      await record(fresh.db, txid);
      for (let i = 0; i < EACH; i++) await output(fresh.db, txid, i, `writer-${w}`, 10n);
      own.push(Array.from({ length: EACH }, (_, i) => `${txid}_${i}`));
    }
    const shared = ['shared-x', 'shared-y'];
    const paid = new Map(shared.map((o) => [o, 0n]));
    let folding = true;
    let turns = 0;
    const folds = (async () => {
      for (; folding; turns++) {
        await foldEndedBalanceParts(pools[turns % WRITERS]!);
        await new Promise((r) => setTimeout(r, 2));
      }
    })();
    try {
      await Promise.all(
        pools.map((pool, w) =>
          (async () => {
            for (let i = 0; i < EACH; i++) {
              const [inTxid, inVout] = own[w]![i]!.split('_');
              const txid = randomTxid();
              const order = (w + i) % 2 === 0 ? shared : [...shared].reverse();
              paid.set(order[0]!, paid.get(order[0]!)! + 4n);
              paid.set(order[1]!, paid.get(order[1]!)! + 6n);
              await pool.transaction(async (tx) => {
                await record(tx, txid);
                await tx.query('UPDATE token_outputs SET spent_by = $3 WHERE txid = $1 AND vout = $2', [
                  inTxid!,
                  Number(inVout),
                  txid,
                ]);
                await output(tx, txid, 0, order[0]!, 4n);
                await tx.query('SELECT pg_sleep(0.002)');
                await output(tx, txid, 1, order[1]!, 6n);
              });
            }
          })(),
        ),
      );
    } finally {
      folding = false;
      await folds;
    }
    assert.ok(turns > 0, 'folds ran while the writers wrote');
    const owners = [...shared, ...Array.from({ length: WRITERS }, (_, w) => `writer-${w}`)];
    const expected = new Map(owners.map((o) => [o, paid.get(o) ?? 0n]));
    assert.deepStrictEqual(await balances(fresh.db, owners), expected);
    assert.deepStrictEqual(await keptBalanceDrift(fresh.db), []);

    // The writers' connections end: their rows fold into backend 0, every balance as it was.
    const backends = async () =>
      (
        await fresh.db.query<{ n: number }>(
          "SELECT count(DISTINCT backend)::int AS n FROM address_balance_parts WHERE owner = 'shared-x'",
        )
      )[0]!.n;
    assert.ok((await backends()) >= WRITERS, 'a row for each writer that paid shared-x');
    await Promise.all(pools.map((p) => p.close()));
    pools = [];
    await eventually(
      async () => ((await balancePartsEnded(fresh.db)) ? true : undefined),
      "the writers' connections end",
    );
    assert.ok((await foldEndedBalanceParts(fresh.db)) >= WRITERS * 3);
    assert.ok((await backends()) <= 2, "backend 0 and at most the test's own connection");
    assert.deepStrictEqual(await balances(fresh.db, owners), expected);
    assert.deepStrictEqual(await keptBalanceDrift(fresh.db), []);
  });

  test('a fold never waits for a writer: a locked row is left for a later fold', async () => {
    const ended = 2147483001;
    await fresh.db.query(
      `INSERT INTO address_balance_parts (owner, backend, balance) VALUES ('locked', ${ended}, 4), ('free', ${ended}, 1)`,
    );
    await fresh.db.query(`INSERT INTO balance_total_parts (backend, total) VALUES (${ended}, 5)`);
    // As a new connection that came back with the ended connection's pid would: mid-transaction,
    // it has written one of the rows and the total.
    const held = holdOpen(fresh.db, async (tx) => {
      await tx.query(
        `UPDATE address_balance_parts SET balance = balance + 1 WHERE owner = 'locked' AND backend = ${ended}`,
      );
      await tx.query(`UPDATE balance_total_parts SET total = total + 1 WHERE backend = ${ended}`);
    });
    await held.ready;
    try {
      const folded = await Promise.race([
        foldEndedBalanceParts(fresh.db),
        new Promise<'waited'>((r) => setTimeout(() => r('waited'), 3_000)),
      ]);
      assert.equal(folded, 1, 'the fold did not wait: it folded the row that was free');
    } finally {
      held.commit();
      await held.ended;
    }
    assert.equal(await foldEndedBalanceParts(fresh.db), 1, 'once committed, the other row folds');
    assert.deepStrictEqual(
      await balances(fresh.db, ['locked', 'free']),
      new Map([
        ['locked', 5n],
        ['free', 1n],
      ]),
    );
    const [rows] = await fresh.db.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM address_balance_parts WHERE backend = ${ended})
            + (SELECT count(*) FROM balance_total_parts WHERE backend = ${ended}) AS n`,
    );
    assert.equal(Number(rows?.n), 0, 'nothing of the ended connection is left');
  });

  test('two folds at once: one takes the turn, every row is folded once', async () => {
    const folders = await Promise.all(
      [1, 2].map(() => openPostgresDb(testDatabaseUrl!, { schema: fresh.schema!, max: 2 })),
    );
    try {
      for (let pid = 2147483100; pid < 2147483120; pid++) {
        await fresh.db.query(
          'INSERT INTO address_balance_parts (owner, backend, balance) VALUES ($1, $2, 1), ($3, $2, 2)',
          ['twice', pid, `twice-${pid}`],
        );
        await fresh.db.query('INSERT INTO balance_total_parts (backend, total) VALUES ($1, 3)', [pid]);
      }
      const before = await balances(fresh.db, ['twice']);
      assert.deepStrictEqual(before, new Map([['twice', 20n]]));
      const folded = await Promise.all(folders.map((p) => foldEndedBalanceParts(p)));
      assert.equal(folded[0]! + folded[1]!, 40, `each row once (${folded})`);
      assert.deepStrictEqual(await balances(fresh.db, ['twice']), before);
      const [total] = await fresh.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM balance_total_parts WHERE backend >= 2147483100',
      );
      assert.equal(total?.n, 0);
    } finally {
      await Promise.all(folders.map((p) => p.close()));
    }
  });
});
