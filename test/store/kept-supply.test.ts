// The supply read from the kept balances (migration 040, store/wallets/kept-supply.ts), on both
// adapters: it answers what supply() answers (which sums every output) through mints,
// transfers, a burn, outputs to the burn address, seizures and a failed transfer unwound, with
// changes pending and folded; the kept total follows every write of address_balances (the fold's
// INSERT ... ON CONFLICT DO UPDATE, manual updates, deletes, a TRUNCATE, the documented
// rebuild); the audit reports a total written around its triggers; the opening total of a
// database made before 040 is right; the read sums no table whole.
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
  balanceChangesPending,
  foldBalanceChanges,
  keptBalanceDrift,
} from '../../src/store/wallets/address-balances.js';
import { keptSupply, keptTotalDrift } from '../../src/store/wallets/kept-supply.js';
import { supply } from '../../src/store/wallets/wallet-queries.js';
import { auditLedger } from '../../src/usecases/supply/audit-ledger.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import {
  releaseReservation,
  restateTransaction,
  seedTicket,
  seedTransaction,
} from '../support/seed-store.js';

const MINT = 'mint-address';
const BURN = 'burn-address';
const GENESIS = 2n ** 64n + 18_446_744_073_709_500_000n; // past 2^64: sums must stay exact

/** The token's own addresses, and pairs that exercise the split's edges. */
const TOKENS = [
  { mintAddress: MINT, burnAddress: BURN },
  { mintAddress: MINT, burnAddress: MINT }, // mint = burn: no treasury, as supply() says
  { mintAddress: 'A', burnAddress: BURN }, // another holder as the mint
  { mintAddress: 'S', burnAddress: 'A' }, // the seized owner as the mint, a holder as the burn
  { mintAddress: 'nobody-1', burnAddress: 'nobody-2' },
];

/** The total row and the sum of the kept balances' rows. */
async function totals(q: Queryable): Promise<{ kept: string | undefined; summed: string | undefined }> {
  const [row] = await q.query<{ kept: string | null; summed: string }>(
    `SELECT (SELECT total FROM kept_balance_total)::text AS kept,
            (SELECT coalesce(sum(balance), 0) FROM address_balances)::text AS summed`,
  );
  return { kept: row?.kept ?? undefined, summed: row?.summed };
}

async function assertTotalKept(q: Queryable, label: string): Promise<void> {
  const { kept, summed } = await totals(q);
  assert.equal(kept, summed, `${label}: kept_balance_total = sum(address_balances)`);
}

async function assertSameSupply(db: Db, label: string): Promise<void> {
  for (const token of TOKENS)
    assert.deepStrictEqual(
      await keptSupply(db, token),
      await supply(db, token),
      `${label}: ${token.mintAddress} / ${token.burnAddress}`,
    );
  await assertTotalKept(db, label);
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
  test('answers what supply() answers through a history of every kind of write, pending and folded', async () => {
    const db = fresh.db;
    let step = 0;
    /** Checks with the step's changes pending, then (every other step) folded with them. */
    const check = async (what: string) => {
      step++;
      await assertSameSupply(db, `${what} (pending)`);
      if (step % 2 === 0) {
        await foldBalanceChanges(db);
        assert.equal(await balanceChangesPending(db), false);
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
    await foldBalanceChanges(db);
    await check('all folded');

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

  test("a fold's INSERT ... ON CONFLICT DO UPDATE counts the rows it inserts and those it updates once each", async () => {
    const db = fresh.db;
    await seedTransaction(db, { senders: [], outputs: [{ owner: 'held-before', amount: 1_000n }] });
    await foldBalanceChanges(db);
    const before = BigInt((await totals(db)).kept!);
    const paid = await seedTransaction(db, {
      senders: [],
      outputs: [
        { owner: 'held-before', amount: 7n },
        { owner: 'first-seen', amount: 11n },
      ],
    });
    const [existing] = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM address_balances WHERE owner IN ('held-before', 'first-seen')",
    );
    assert.equal(existing?.n, 1, 'one owner has a row (updated by the fold), the other none (inserted)');
    assert.ok((await foldBalanceChanges(db)) >= 2);
    assert.equal((await totals(db)).kept, String(before + 18n));
    await assertTotalKept(db, 'after a fold that inserts and updates');

    // A fold that only lowers a balance (an update), and one with nothing to move.
    await seedTransaction(db, { spends: [paid.outpoints[0]!], outputs: [] });
    await foldBalanceChanges(db);
    assert.equal((await totals(db)).kept, String(before + 11n));
    assert.equal(await foldBalanceChanges(db), 0);
    assert.equal((await totals(db)).kept, String(before + 11n));
    await assertSameSupply(db, 'after the folds');
  });

  test('manual writes of address_balances keep the total, and the documented rebuild mends it', async () => {
    const db = fresh.db;
    await seedTransaction(db, {
      senders: [],
      outputs: [
        { owner: 'manual-1', amount: 100n },
        { owner: 'manual-2', amount: 200n },
      ],
    });
    await foldBalanceChanges(db);
    await db.query("UPDATE address_balances SET balance = balance + 5 WHERE owner = 'manual-1'");
    await assertTotalKept(db, 'an update of one row');
    await db.query("UPDATE address_balances SET balance = balance * 2 WHERE owner LIKE 'manual-%'");
    await assertTotalKept(db, 'an update of several rows');
    await db.query("DELETE FROM address_balances WHERE owner = 'manual-2'");
    await assertTotalKept(db, 'a delete');
    await db.query("INSERT INTO address_balances (owner, balance) VALUES ('manual-3', 9)");
    await assertTotalKept(db, 'an insert');
    assert.equal(await keptTotalDrift(db), null, 'the total follows the rows, however wrong they are');
    assert.notDeepStrictEqual(await keptBalanceDrift(db), [], 'the rows are wrong');
    await db.query('TRUNCATE address_balances');
    await assertTotalKept(db, 'a truncate');

    // A total written around its triggers, and rows wrong too: the rebuild mends both.
    await db.query('UPDATE kept_balance_total SET total = total + 3');
    assert.notEqual(await keptTotalDrift(db), null);
    const docs = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
    const rebuild = /To rebuild the kept\sbalances[\s\S]*?```sql\n([\s\S]*?)```/.exec(docs)?.[1] ?? '';
    assert.ok(rebuild.includes('kept_balance_total'), 'the rebuild in the docs rebuilds the total');
    await db.query(rebuild);
    assert.equal(await keptTotalDrift(db), null);
    assert.deepStrictEqual(await keptBalanceDrift(db), []);
    await assertSameSupply(db, 'after the rebuild');
  });

  test('the supply read sums no table whole: the burns by their index, the rest by key', async () => {
    // Grown enough that a whole-table read costs more than the indexes.
    await seedTransaction(fresh.db, {
      senders: [],
      outputs: Array.from({ length: 400 }, (_, i) => ({ owner: `grown-${i % 50}`, amount: 1n })),
    });
    await fresh.db.query('ANALYZE token_outputs');
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
    assert.doesNotMatch(plan, /Seq Scan on token_outputs/);
    assert.doesNotMatch(plan, /Seq Scan on address_balances\b/);
  });
});

describeOnEachDb('the audit of the kept total', (fresh) => {
  const token = { tokenId: `${'d'.repeat(64)}_0`, mintAddress: MINT, burnAddress: BURN };

  test('a kept total unlike the kept balances is reported, and the report is ok once mended', async () => {
    const db = fresh.db;
    assert.equal((await auditLedger(db, token)).ok, true, 'an empty ledger agrees with itself');
    await db.query('UPDATE kept_balance_total SET total = total + 9');
    const report = await auditLedger(db, token);
    assert.equal(report.ok, false);
    assert.deepStrictEqual(report.keptTotalDifference, { kept: 9n, summed: 0n });
    assert.deepStrictEqual(report.keptBalanceDifferences, []);
    await db.query('DELETE FROM kept_balance_total');
    assert.deepStrictEqual((await auditLedger(db, token)).keptTotalDifference, { kept: null, summed: 0n });
    await db.query('INSERT INTO kept_balance_total (total) VALUES (0)');
    const mended = await auditLedger(db, token);
    assert.equal(mended.keptTotalDifference, null);
    assert.equal(mended.ok, true);
  });
});

describeOnEachDb('migration 040', { migrate: false }, (fresh) => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'tokenproxy-migrations-'));
    for (const name of readdirSync(migrationsDir()))
      if (name.endsWith('.sql') && name < '040') copyFileSync(join(migrationsDir(), name), join(dir, name));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('opening total: the sum of address_balances when 040 is applied, pending changes left pending', async () => {
    const db = fresh.db;
    await migrate(db, { dir });
    const genesis = await seedTransaction(db, {
      senders: [],
      outputs: [
        { owner: MINT, amount: 2n ** 80n, op: 'deploy+mint' },
        { owner: 'ann', amount: 100n },
      ],
    });
    await foldBalanceChanges(db);
    await seedTransaction(db, {
      spends: [genesis.outpoints[0]!],
      outputs: [
        { owner: 'bob', amount: 40n },
        { owner: MINT, amount: 2n ** 80n - 50n },
        { owner: MINT, amount: 10n, op: 'burn' },
      ],
    });
    assert.equal(await balanceChangesPending(db), true);
    const { applied } = await migrate(db);
    assert.ok(applied.includes('040_kept_supply'));
    const [row] = await db.query<{ total: string }>('SELECT total::text AS total FROM kept_balance_total');
    assert.equal(row?.total, String(2n ** 80n + 100n), 'the folded balances only');
    await assertSameSupply(db, 'pending since before 040');
    await foldBalanceChanges(db);
    await assertSameSupply(db, 'folded after 040');
  });
});
