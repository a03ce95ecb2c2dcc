// The supply read from the kept balances (migrations 040 and 048, store/wallets/kept-supply.ts), on
// both adapters: it answers what supply() answers (which sums every output) through mints,
// transfers, a burn, outputs to the burn address, seizures and a failed transfer unwound, with
// the balances kept in rows of live connections, of ended ones and folded; the kept total follows
// every write of token_outputs, the triggers' and the fold's INSERT ... ON CONFLICT DO UPDATE
// adding each owner's change once; the audit reports balance and total rows written around the
// triggers, and the documented rebuild mends them; migration 048 carries the kept balances and
// total over; the read sums no large table whole.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { freezeAddress } from '../../src/store/controls/freeze-store.js';
import { prepareSeizure } from '../../src/store/controls/seizure-store.js';
import type { Db, Queryable, Row, SqlValue } from '../../src/store/db/db.js';
import { migrate, migrationsDir } from '../../src/store/migrate.js';
import {
  balancePartsEnded,
  foldEndedBalanceParts,
  keptBalanceDrift,
} from '../../src/store/wallets/address-balances.js';
import { keptSupply, keptTotalDrift } from '../../src/store/wallets/kept-supply.js';
import { balances, supply } from '../../src/store/wallets/wallet-queries.js';
import { auditLedger } from '../../src/usecases/supply/audit-ledger.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { backendPid, inside } from '../support/held-transaction.js';
import {
  releaseReservation,
  restateTransaction,
  seedTicket,
  seedTransaction,
} from '../support/seed-store.js';

const MINT = 'mint-address';
const BURN = 'burn-address';
const GENESIS = 2n ** 64n + 18_446_744_073_709_500_000n; // past 2^64: sums must stay exact

/**
 * Process ids from here up are no connection's (a pid stays below 2^22 on Linux): rows written
 * under them are those of connections that have ended, which a fold moves to backend 0.
 */
const ENDED = 2_000_000_000;

/** The token's own addresses, and pairs that exercise the split's edges. */
const TOKENS = [
  { mintAddress: MINT, burnAddress: BURN },
  { mintAddress: MINT, burnAddress: MINT }, // mint = burn: no treasury, as supply() says
  { mintAddress: 'A', burnAddress: BURN }, // another holder as the mint
  { mintAddress: 'S', burnAddress: 'A' }, // the seized owner as the mint, a holder as the burn
  { mintAddress: 'nobody-1', burnAddress: 'nobody-2' },
];

/** The kept total (every row of balance_total_parts) and the sum of every kept balance row. */
async function totals(q: Queryable): Promise<{ kept: bigint; summed: bigint }> {
  const [row] = await q.query<{ kept: string; summed: string }>(
    `SELECT (SELECT coalesce(sum(total), 0) FROM balance_total_parts)::text AS kept,
            (SELECT coalesce(sum(balance), 0) FROM address_balance_parts)::text AS summed`,
  );
  return { kept: BigInt(row!.kept), summed: BigInt(row!.summed) };
}

async function assertTotalKept(q: Queryable, label: string): Promise<void> {
  const { kept, summed } = await totals(q);
  assert.equal(kept, summed, `${label}: sum(balance_total_parts) = sum(address_balance_parts)`);
}

async function assertSameSupply(db: Db, label: string): Promise<void> {
  for (const token of TOKENS)
    assert.deepStrictEqual(
      await keptSupply(db, token),
      await supply(db, token),
      `${label}: ${token.mintAddress} / ${token.burnAddress}`,
    );
  await assertTotalKept(db, label);
  assert.deepStrictEqual(await keptBalanceDrift(db), [], `${label}: every kept balance`);
}

/**
 * Moves the balance and total rows of the backends `which` keeps (by default every live one) to
 * backend `pid`, summed, as if they had been one connection that has now ended: what a fold
 * finds once a pool has closed its connections (PGlite's one connection never ends). No sum
 * moves. Answers the balance rows moved.
 */
async function endConnections(q: Queryable, pid: number, which = `backend <> 0 AND backend < ${ENDED}`) {
  const [moved] = await q.query<{ n: number }>(
    `WITH gone AS (DELETE FROM address_balance_parts WHERE ${which} RETURNING owner, balance),
     kept AS (
       INSERT INTO address_balance_parts (owner, backend, balance)
       SELECT owner, $1::int, sum(balance) FROM gone GROUP BY owner
     )
     SELECT count(*)::int AS n FROM gone`,
    [pid],
  );
  await q.query(
    `WITH gone AS (DELETE FROM balance_total_parts WHERE ${which} RETURNING total)
     INSERT INTO balance_total_parts (backend, total)
     SELECT $1::int, sum(total) FROM gone HAVING count(*) > 0`,
    [pid],
  );
  return moved!.n;
}

/** Outputs inserted in one statement (the triggers run once for all), under a record of their own. */
async function insertOutputs(db: Db, outputs: readonly { owner: string; amount: bigint }[]) {
  return db.transaction(async (tx) => {
    const carrier = await seedTransaction(inside(db, tx), { senders: [], outputs: [] });
    await tx.query(
      `INSERT INTO token_outputs (txid, vout, owner, amount, op, script, satoshis, score)
       SELECT $1, o.n::int - 1, o.owner, o.amount, 'transfer', '\\x76a9'::bytea, 1, $2
         FROM unnest($3::text[], $4::numeric[]) WITH ORDINALITY AS o(owner, amount, n)`,
      [carrier.txid, carrier.score, outputs.map((o) => o.owner), outputs.map((o) => String(o.amount))],
    );
    return outputs.map((_, i) => `${carrier.txid}_${i}`);
  });
}

/** The kept balance rows of `backend` whose owner starts with `prefix`, in owner order. */
async function partsOf(q: Queryable, backend: number, prefix: string) {
  return q.query<{ owner: string; balance: string }>(
    `SELECT owner, balance::text AS balance FROM address_balance_parts
      WHERE backend = $1 AND starts_with(owner, $2) ORDER BY owner`,
    [backend, prefix],
  );
}

/** The documented rebuild of the kept balances (docs/operations.md), as an operator would run it. */
function documentedRebuild(): string {
  const docs = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
  return /To rebuild the kept\sbalances[\s\S]*?```sql\n([\s\S]*?)```/.exec(docs)?.[1] ?? '';
}

/** A seizure of `outpoints` (their owner frozen first), recorded as the issuer's order would be. */
async function seize(db: Db, reference: string, outpoints: readonly string[], amount: bigint): Promise<void> {
  const at = new Date();
  const refs = outpoints.map((o) => {
    const [txid, vout] = o.split('_');
    return { txid: txid!, vout: Number(vout) };
  });
  for (const { txid, vout } of refs) {
    const [row] = await db.query<{ owner: string }>(
      'SELECT owner FROM token_outputs WHERE txid = $1 AND vout = $2',
      [txid, vout],
    );
    await freezeAddress(db, { address: row!.owner, reason: 'order', actor: 'test', at });
  }
  const prepared = await prepareSeizure(
    db,
    { id: randomUUID(), reference, reason: 'order', reissueTo: 'R', actor: 'test', at },
    refs,
    { amount, reissue: new Uint8Array([1, 2, 3]) },
  );
  assert.equal(prepared.kind, 'prepared', prepared.kind === 'refused' ? prepared.why : prepared.kind);
}

describeOnEachDb('supply from the kept balances', (fresh) => {
  test('answers what supply() answers through a history of every kind of write, live, ended and folded', async () => {
    const db = fresh.db;
    let step = 0;
    /** The most kinds of rows (folded, of an ended connection, of a live one) one balance was read from. */
    let mostKinds = 0;
    /**
     * Checks after the step's writes, again once the connections that wrote have ended, and
     * every fifth step once their rows are folded.
     */
    const check = async (what: string) => {
      step++;
      await assertSameSupply(db, `${what} (live)`);
      const [row] = await db.query<{ n: number }>(
        `SELECT coalesce(max(n), 0)::int AS n FROM (
           SELECT count(DISTINCT CASE WHEN backend = 0 THEN 0 WHEN backend >= ${ENDED} THEN 1 ELSE 2 END) AS n
             FROM address_balance_parts GROUP BY owner) c`,
      );
      mostKinds = Math.max(mostKinds, row!.n);
      if ((await endConnections(db, ENDED + step)) > 0) assert.equal(await balancePartsEnded(db), true);
      await assertSameSupply(db, `${what} (its connections ended)`);
      if (step % 5 === 0) {
        await foldEndedBalanceParts(db);
        assert.equal(await balancePartsEnded(db), false, `${what}: nothing left to fold`);
        await assertSameSupply(db, `${what} (folded)`);
      }
    };
    await check('nothing yet');

    const genesis = await seedTransaction(db, {
      senders: [],
      outputs: [{ owner: MINT, amount: GENESIS, op: 'deploy+mint' }],
      block: { height: 899_000, idx: 0, hash: '01'.repeat(32), time: 1_709_000_000 },
    });
    await check('the genesis mint');

    const accepted = await seedTicket(db, { status: 'BROADCASTING' });
    const toA = await seedTransaction(db, {
      spends: genesis.outpoints,
      ticketId: accepted,
      outputs: [
        { owner: 'A', amount: 1_000n },
        { owner: MINT, amount: GENESIS - 1_000n },
      ],
    });
    await check('a mint to A, reserved');
    await releaseReservation(db, accepted);
    await restateTransaction(db, toA.txid, 'mined', {
      height: 900_000,
      idx: 3,
      hash: 'ef'.repeat(32),
      time: 1,
    });
    await check('the mint to A, accepted and mined');

    const live = await seedTicket(db, { status: 'BROADCASTING' });
    const aToB = await seedTransaction(db, {
      spends: [toA.outpoints[0]!],
      ticketId: live,
      outputs: [
        { owner: 'B', amount: 300n },
        { owner: 'A', amount: 700n },
      ],
    });
    await check('A pays B under a live ticket');

    // A failed ticket: its inputs released, its outputs deleted (the verdicts' write).
    const failedTicket = await seedTicket(db, { status: 'BROADCASTING' });
    const failed = await seedTransaction(db, {
      spends: [aToB.outpoints[0]!],
      ticketId: failedTicket,
      outputs: [{ owner: 'C', amount: 300n }],
    });
    await check('B pays C, pending its verdict');
    await db.transaction(async (tx) => {
      await tx.query('UPDATE token_outputs SET spent_by = NULL, reserved_by = NULL WHERE reserved_by = $1', [
        failedTicket,
      ]);
      await tx.query('DELETE FROM transactions WHERE txid = $1', [failed.txid]); // cascades to its outputs
    });
    await check('B pays C, failed and unwound');

    const burn = await seedTransaction(db, {
      spends: [toA.outpoints[1]!],
      outputs: [
        { owner: MINT, amount: 50n, op: 'burn' },
        { owner: BURN, amount: 25n },
        { owner: BURN, amount: 5n, op: 'burn' },
        { owner: MINT, amount: GENESIS - 1_080n },
      ],
    });
    await check('a burn, a redemption to the burn address, a burn output it owns');

    const toS = await seedTransaction(db, {
      spends: [aToB.outpoints[1]!],
      outputs: [
        { owner: 'S', amount: 400n },
        { owner: 'S', amount: 60n },
        { owner: 'A', amount: 240n },
      ],
    });
    await check('A pays S');
    await seize(db, 'order-1', [toS.outpoints[0]!], 400n);
    await check("one of S's outputs seized");
    await seize(db, 'order-2', [burn.outpoints[1]!], 25n);
    await check("the burn address's output seized (counted burned, not seized)");

    const sToD = await seedTransaction(db, {
      spends: [toS.outpoints[1]!],
      outputs: [{ owner: 'D', amount: 60n }],
    });
    await check("S's other output spent");
    await seedTransaction(db, {
      spends: [sToD.outpoints[0]!, burn.outpoints[3]!],
      outputs: [
        { owner: MINT, amount: GENESIS - 1_080n },
        { owner: 'D', amount: 60n },
      ],
    });
    await check('the treasury and D in one transfer');
    await endConnections(db, ENDED + 1_000);
    assert.ok((await foldEndedBalanceParts(db)) > 0);
    await check('all folded');
    assert.equal(mostKinds, 3, 'some balance was read from rows of a live, an ended and a folded connection');

    // Every part of the split holds something: equal answers are not zeros compared.
    const s = await keptSupply(db, { mintAddress: MINT, burnAddress: BURN });
    assert.deepStrictEqual(s, {
      circulating: 240n + 60n + 300n, // A, D, B (B's output released)
      seized: 400n,
      treasury: GENESIS - 1_080n,
      burned: 50n + 5n + 25n,
    });
    assert.equal(s.circulating + s.seized + s.treasury + s.burned, GENESIS);
    assert.deepStrictEqual(await keptBalanceDrift(db), []);
    assert.equal(await keptTotalDrift(db), null);
  });

  test("the triggers' and the fold's INSERT ... ON CONFLICT DO UPDATE add each owner's change once, its row inserted or updated", async () => {
    const db = fresh.db;
    await endConnections(db, ENDED - 1);
    await foldEndedBalanceParts(db);
    const before = await totals(db);
    // One transaction: every statement on one connection, whose rows the triggers write.
    const pid = await db.transaction(async (tx) => {
      const here = inside(db, tx);
      const pid = await backendPid(tx);
      await seedTransaction(here, { senders: [], outputs: [{ owner: 'once-held', amount: 1_000n }] });
      assert.deepStrictEqual(
        await partsOf(tx, pid, 'once-'),
        [{ owner: 'once-held', balance: '1000' }],
        'one owner has a row of this connection (updated next), the other none (inserted)',
      );
      const [, toNew] = await insertOutputs(here, [
        { owner: 'once-held', amount: 7n },
        { owner: 'once-new', amount: 11n },
      ]);
      assert.deepStrictEqual(await partsOf(tx, pid, 'once-'), [
        { owner: 'once-held', balance: '1007' },
        { owner: 'once-new', balance: '11' },
      ]);
      assert.equal((await totals(tx)).kept, before.kept + 1_018n);
      await assertTotalKept(tx, 'after a statement that inserts a row and updates another');

      // The connection ends (its rows move away); its next statement moves an output to another
      // owner, a net change of zero: the total's row is written all the same, so a fold finds it.
      await endConnections(tx, ENDED - 2, `backend = ${pid}`);
      await tx.query("UPDATE token_outputs SET owner = 'once-moved' WHERE txid || '_' || vout = $1", [
        toNew!,
      ]);
      assert.deepStrictEqual(await partsOf(tx, pid, 'once-'), [
        { owner: 'once-moved', balance: '11' },
        { owner: 'once-new', balance: '-11' },
      ]);
      const own = await tx.query<{ total: string }>(
        'SELECT total::text AS total FROM balance_total_parts WHERE backend = $1',
        [pid],
      );
      assert.deepStrictEqual(own, [{ total: '0' }], 'a total row of zero: the net change');
      return pid;
    });
    assert.equal((await totals(db)).kept, before.kept + 1_018n);

    // The first fold inserts both owners at backend 0; the second updates one and inserts one.
    assert.equal(await foldEndedBalanceParts(db), 2, "the ended connection's two rows");
    assert.deepStrictEqual(await partsOf(db, 0, 'once-'), [
      { owner: 'once-held', balance: '1007' },
      { owner: 'once-new', balance: '11' },
    ]);
    await endConnections(db, ENDED - 3, `backend = ${pid}`);
    assert.equal(await foldEndedBalanceParts(db), 2);
    assert.deepStrictEqual(await partsOf(db, 0, 'once-'), [
      { owner: 'once-held', balance: '1007' },
      { owner: 'once-moved', balance: '11' },
      { owner: 'once-new', balance: '0' },
    ]);
    assert.deepStrictEqual(await partsOf(db, pid, 'once-'), []);
    const left = await db.query('SELECT backend FROM balance_total_parts WHERE backend >= $1', [ENDED - 3]);
    assert.deepStrictEqual(left, [], 'the ended total rows are folded too');
    assert.equal((await totals(db)).kept, before.kept + 1_018n, 'a fold moves no total');
    assert.equal(await foldEndedBalanceParts(db), 0, 'nothing left to fold');
    assert.deepStrictEqual(
      await balances(db, ['once-held', 'once-moved', 'once-new']),
      new Map([
        ['once-held', 1_007n],
        ['once-moved', 11n],
        ['once-new', 0n],
      ]),
    );
    await assertSameSupply(db, 'after the folds');
  });

  test('balance and total rows written around the triggers are found, and the documented rebuild mends them', async () => {
    const db = fresh.db;
    await seedTransaction(db, {
      senders: [],
      outputs: [
        { owner: 'manual-1', amount: 100n },
        { owner: 'manual-2', amount: 200n },
      ],
    });
    assert.equal(await keptTotalDrift(db), null);
    const start = await totals(db);
    await db.query("UPDATE address_balance_parts SET balance = balance + 5 WHERE owner = 'manual-1'");
    assert.deepStrictEqual(await keptTotalDrift(db), { kept: start.kept, summed: start.kept + 5n });
    assert.deepStrictEqual(await keptBalanceDrift(db), [{ address: 'manual-1', kept: 105n, summed: 100n }]);
    await db.query(
      `INSERT INTO balance_total_parts AS t (backend, total) VALUES (0, 5)
       ON CONFLICT (backend) DO UPDATE SET total = t.total + EXCLUDED.total`,
    );
    assert.equal(await keptTotalDrift(db), null, 'the total agrees with the rows, however wrong they are');
    assert.notDeepStrictEqual(await keptBalanceDrift(db), [], 'the rows are wrong');
    await db.query("DELETE FROM address_balance_parts WHERE owner = 'manual-2'");
    assert.deepStrictEqual(await keptTotalDrift(db), { kept: start.kept + 5n, summed: start.kept - 195n });
    // Rows of a connection that ended, and no total row left at all.
    await db.query(
      `INSERT INTO address_balance_parts (owner, backend, balance) VALUES ('manual-3', ${ENDED}, 9)`,
    );
    await db.query('DELETE FROM balance_total_parts');
    assert.deepStrictEqual(await keptTotalDrift(db), { kept: 0n, summed: start.kept - 186n });
    assert.deepStrictEqual(
      (await keptBalanceDrift(db)).map((d) => d.address),
      ['manual-1', 'manual-2', 'manual-3'],
    );

    const rebuild = documentedRebuild();
    assert.match(rebuild, /\baddress_balance_parts\b/, 'the rebuild in the docs rebuilds the balances');
    assert.match(rebuild, /\bbalance_total_parts\b/, 'the rebuild in the docs rebuilds the total');
    await db.query(rebuild);
    assert.equal(await keptTotalDrift(db), null);
    assert.deepStrictEqual(await keptBalanceDrift(db), []);
    const [rows] = await db.query<{ elsewhere: number; totals: number }>(
      `SELECT (SELECT count(*) FROM address_balance_parts WHERE backend <> 0)::int AS elsewhere,
              (SELECT count(*) FROM balance_total_parts WHERE backend <> 0)::int AS totals`,
    );
    assert.deepStrictEqual(rows, { elsewhere: 0, totals: 0 }, 'rebuilt at backend 0 only');
    assert.equal(await balancePartsEnded(db), false);
    await assertSameSupply(db, 'after the rebuild');
    await seedTransaction(db, { senders: [], outputs: [{ owner: 'manual-1', amount: 1n }] });
    await assertSameSupply(db, 'a write after the rebuild');
  });

  test('the supply read sums no large table whole: the burns by their index, the balances by key', async () => {
    // Grown enough that a whole-table read costs more than the indexes.
    await seedTransaction(fresh.db, {
      senders: [],
      outputs: Array.from({ length: 400 }, (_, i) => ({ owner: `grown-${i % 50}`, amount: 1n })),
    });
    await fresh.db.query('ANALYZE token_outputs');
    await fresh.db.query('ANALYZE address_balance_parts');
    const statements: { sql: string; params: readonly SqlValue[] }[] = [];
    const recorder: Queryable = {
      query: <R extends Row = Row>(sql: string, params: readonly SqlValue[] = []) => {
        statements.push({ sql, params });
        return fresh.db.query<R>(sql, params);
      },
    };
    await keptSupply(recorder, { mintAddress: MINT, burnAddress: BURN });
    assert.equal(statements.length, 1, 'one statement, one snapshot');
    const { sql, params } = statements[0]!;
    const plan = await fresh.db.transaction(async (tx) => {
      await tx.query('SET LOCAL enable_seqscan = off');
      const rows = await tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params);
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    });
    assert.match(plan, /\btoken_outputs_burns\b/);
    assert.match(plan, /\baddress_balance_parts_pkey\b/, 'the two balances by their owners');
    assert.doesNotMatch(plan, /Seq Scan on token_outputs/);
    assert.doesNotMatch(plan, /Seq Scan on address_balance_parts\b/);
  });
});

describeOnEachDb('the audit of the kept total', (fresh) => {
  const token = { tokenId: `${'d'.repeat(64)}_0`, mintAddress: MINT, burnAddress: BURN };

  test('a kept total unlike the kept balances is reported, and the report is ok once mended', async () => {
    const db = fresh.db;
    assert.equal((await auditLedger(db, token)).ok, true, 'an empty ledger agrees with itself');
    // The empty ledger's total (0, carried over by migration 048) written around the triggers.
    await db.query('UPDATE balance_total_parts SET total = total + 9');
    const report = await auditLedger(db, token);
    assert.equal(report.ok, false);
    assert.deepStrictEqual(report.keptTotalDifference, { kept: 9n, summed: 0n });
    assert.deepStrictEqual(report.keptBalanceDifferences, []);
    await db.query('DELETE FROM balance_total_parts');
    assert.equal((await auditLedger(db, token)).ok, true);

    // A total row gone: the rows left sum to less than the balances. (Read with the audit's own
    // check: the seeded record's bytes are random, no transaction for the audit to parse.)
    await seedTransaction(db, { senders: [], outputs: [{ owner: 'held', amount: 30n }] });
    assert.equal(await keptTotalDrift(db), null);
    await db.query('DELETE FROM balance_total_parts');
    assert.deepStrictEqual(await keptTotalDrift(db), { kept: 0n, summed: 30n });
    assert.deepStrictEqual(await keptBalanceDrift(db), []);
    await db.query('INSERT INTO balance_total_parts (backend, total) VALUES (0, 30)');
    assert.equal(await keptTotalDrift(db), null);
    assert.deepStrictEqual(await keptBalanceDrift(db), []);
  });
});

describeOnEachDb('migration 048', { migrate: false }, (fresh) => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'tokenproxy-migrations-'));
    for (const name of readdirSync(migrationsDir()))
      if (name.endsWith('.sql') && name < '048') copyFileSync(join(migrationsDir(), name), join(dir, name));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('carries the kept balances, pending changes included, and the kept total over to backend 0', async () => {
    const db = fresh.db;
    await migrate(db, { dir });
    const genesis = await seedTransaction(db, {
      senders: [],
      outputs: [
        { owner: MINT, amount: 2n ** 80n, op: 'deploy+mint' },
        { owner: 'ann', amount: 100n },
      ],
    });
    // The fold before 048 (foldBalanceChanges, gone with it), by hand: the changes so far into
    // address_balances, whose triggers of 040 keep kept_balance_total.
    await db.query(
      `WITH moved AS (DELETE FROM address_balance_changes RETURNING owner, amount)
       INSERT INTO address_balances (owner, balance)
       SELECT owner, sum(amount) FROM moved GROUP BY owner
       ON CONFLICT (owner) DO UPDATE SET balance = address_balances.balance + EXCLUDED.balance`,
    );
    // Changes left pending: MINT's, whose folded row they change, and bob's, who has none.
    await seedTransaction(db, {
      spends: [genesis.outpoints[0]!],
      outputs: [
        { owner: 'bob', amount: 40n },
        { owner: MINT, amount: 2n ** 80n - 50n },
        { owner: MINT, amount: 10n, op: 'burn' },
      ],
    });
    // A change written by hand: a kept balance unlike the outputs, which the audit finds.
    await db.query("INSERT INTO address_balance_changes (owner, amount) VALUES ('ghost', 9)");
    const [pending] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM address_balance_changes');
    assert.ok(pending!.n >= 4, `changes pending when 048 is applied (${pending!.n})`);
    const [old] = await db.query<{ total: string }>('SELECT total::text AS total FROM kept_balance_total');
    assert.equal(old?.total, String(2n ** 80n + 100n), 'the old total: the folded balances only');

    const { applied } = await migrate(db);
    assert.ok(applied.includes('048_balances_kept_per_connection'), applied.join());
    const parts = await db.query<{ owner: string; backend: number; balance: string }>(
      'SELECT owner, backend, balance::text AS balance FROM address_balance_parts ORDER BY owner, backend',
    );
    assert.deepStrictEqual(parts, [
      { owner: 'ann', backend: 0, balance: '100' },
      { owner: 'bob', backend: 0, balance: '40' },
      { owner: 'ghost', backend: 0, balance: '9' },
      { owner: MINT, backend: 0, balance: String(2n ** 80n - 50n) },
    ]);
    const total = await db.query<{ backend: number; total: string }>(
      'SELECT backend, total::text AS total FROM balance_total_parts ORDER BY backend',
    );
    assert.deepStrictEqual(
      total,
      [{ backend: 0, total: String(2n ** 80n + 99n) }],
      'pending changes included',
    );
    const [gone] = await db.query<{ tables: string[] }>(
      `SELECT array_remove(ARRAY[to_regclass('address_balances')::text, to_regclass('address_balance_changes')::text,
                                 to_regclass('kept_balance_total')::text], NULL) AS tables`,
    );
    assert.deepStrictEqual(gone?.tables, [], 'the old tables are dropped');
    assert.equal(await keptTotalDrift(db), null);
    assert.deepStrictEqual(
      await keptBalanceDrift(db),
      [{ address: 'ghost', kept: 9n, summed: 0n }],
      'still found',
    );

    // Mended by hand, the kept balances answer what the outputs do, and the new triggers keep them.
    await db.query("DELETE FROM address_balance_parts WHERE owner = 'ghost'");
    await db.query('UPDATE balance_total_parts SET total = total - 9');
    await assertSameSupply(db, 'carried over by 048');
    await seedTransaction(db, { senders: [], outputs: [{ owner: 'ann', amount: 5n }] });
    await assertSameSupply(db, 'a write after 048');
    assert.deepStrictEqual(
      await balances(db, ['ann', 'bob']),
      new Map([
        ['ann', 105n],
        ['bob', 40n],
      ]),
    );
  });
});
