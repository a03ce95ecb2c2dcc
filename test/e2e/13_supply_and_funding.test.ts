// Supply and funding from the CLI against a real server: burn out of the treasury (supply
// moves from treasury to burned), fund (the funding address and the pool's level), audit
// (index and transactions agree, transfers to the burn address show as redemptions; a
// tampered index is reported and the command exits 1).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { apiContextOf } from '../../src/compose.js';
import { addressesOf } from '../../src/keys/operator-keys.js';
import { sendFromHeldAddress } from '../../src/usecases/supply/send-from-held-address.js';
import { startTestService, type TestService } from './support.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const ENTRY =
  "import { main } from './src/cli/main.ts'; process.exitCode = await main(process.argv.slice(1));";

interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function cli(args: readonly string[]): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', ENTRY, ...args],
      { cwd: ROOT, env: { ...process.env, TOKENPROXY_DATA_DIR: '' }, timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

type Amount = { atomic: number; tokens: string };
type Split = { circulating: Amount; treasury: Amount; burned: Amount; redeemed: Amount };
interface Audit {
  ok: boolean;
  transactions: number;
  supply: { index: Split; recomputed: Split };
  outputDifferences: { outpoint: string; field: string; index: string; recomputed: string }[];
  balanceDifferences: unknown[];
  keptBalanceDifferences: { address: string; kept: Amount; summed: Amount }[];
  keptTotalDifference: { kept: Amount; summed: Amount } | null;
  ticketCountDifferences: { status: string; kept: number; counted: number }[];
  eventCountDifferences: { state: string; kept: number; counted: number }[];
}

describe('supply and funding (CLI e2e)', () => {
  let t: TestService;
  const connection = () => ['--url', t.url, '--data-dir', t.dataDir];
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${t.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${t.adminKey}`,
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const audit = async () => {
    const run = await cli(['audit', ...connection()]);
    return { run, report: JSON.parse(run.stdout) as Audit };
  };

  before(async () => {
    t = await startTestService();
  });
  after(async () => {
    await t?.stop();
  });

  it('fund prints the funding address and the pool level', async () => {
    const run = await cli(['fund', ...connection()]);
    assert.equal(run.code, 0, run.stderr);
    const out = JSON.parse(run.stdout) as { address: string; pool: { available: number; low: boolean } };
    assert.equal(out.address, addressesOf(t.service.parts.keys).fundingAddress);
    assert.ok(out.pool.available > 0);
    assert.equal(out.pool.low, out.pool.available < 100);
  });

  it('fund --txid refuses an unknown transaction (404) and one paying nothing to the funding address (422)', async () => {
    const unknown = await cli(['fund', '--txid', 'ab'.repeat(32), ...connection()]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /404 TX_NOT_FOUND/);
    const minted = await admin('POST', '/v2/admin/mint', {
      to: '1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH',
      amount: '1',
    });
    assert.equal(minted.status, 200);
    const noFunding = await cli(['fund', '--txid', String(minted.body.txid), ...connection()]);
    assert.equal(noFunding.code, 1);
    assert.match(noFunding.stderr, /422 NO_FUNDING_OUTPUT/);
    const bad = await admin('POST', '/v2/admin/funding/payments', { txid: 'xyz' });
    assert.equal(bad.status, 400);
    // The deploy's change is reserve already: naming the deploy records nothing new.
    const deploy = t.service.parts.token.tokenId.split('_')[0]!;
    const again = await cli(['fund', '--txid', deploy, ...connection()]);
    assert.equal(again.code, 0, again.stderr);
    const out = JSON.parse(again.stdout) as {
      recorded: unknown[];
      alreadyRecorded: boolean;
      outputs: unknown[];
    };
    assert.deepEqual(out.recorded, []);
    assert.equal(out.alreadyRecorded, true);
    assert.equal(out.outputs.length, 1);
  });

  it('audit agrees with the index at genesis', async () => {
    const { run, report } = await audit();
    assert.equal(run.code, 0, run.stderr);
    assert.equal(report.ok, true);
    assert.ok(report.transactions >= 1);
    assert.deepEqual(report.supply.index, report.supply.recomputed);
    assert.deepEqual(report.outputDifferences, []);
  });

  it('burn moves tokens from the treasury to burned; a burn from an empty fee address fails', async () => {
    const before = (await audit()).report.supply.recomputed;
    const run = await cli(['burn', '--amount', '12.5', ...connection()]);
    assert.equal(run.code, 0, run.stderr);
    const burned = JSON.parse(run.stdout) as { ticketId: string; txid: string; amount: Amount };
    assert.equal(burned.amount.atomic, 1_250_000);
    assert.match(burned.txid, /^[0-9a-f]{64}$/);
    const after = (await audit()).report;
    assert.equal(after.ok, true);
    assert.equal(after.supply.recomputed.burned.atomic, before.burned.atomic + 1_250_000);
    assert.equal(after.supply.recomputed.treasury.atomic, before.treasury.atomic - 1_250_000);
    const status = await admin('GET', '/v2/admin/status');
    assert.equal(status.status, 200);

    const empty = await cli(['burn', '--amount', '1', '--from', 'fee', ...connection()]);
    assert.equal(empty.code, 1);
    assert.match(empty.stderr, /INVALID_AMOUNT/);
    const wrong = await cli(['burn', '--amount', '1', '--from', 'nobody', ...connection()]);
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /--from must be mint or fee/);
  });

  it('a transfer to the burn address is reported as a redemption', async () => {
    const before = (await audit()).report.supply.recomputed;
    // A plain transfer (not a burn) into the burn address, out of the treasury: the mint route
    // refuses the burn address as a recipient, so it is sent as the service sends a mint.
    const { parts } = t.service;
    await sendFromHeldAddress(apiContextOf(parts), {
      from: parts.token.mintAddress,
      key: parts.keys.mint,
      outputs: [{ op: 'transfer', to: parts.token.burnAddress, amount: 300_000n }],
    });
    const { report } = await audit();
    assert.equal(report.ok, true);
    assert.equal(report.supply.recomputed.redeemed.atomic, before.redeemed.atomic + 300_000);
    assert.equal(report.supply.recomputed.burned.atomic, before.burned.atomic);
    const status = await admin('GET', '/v2/admin/status');
    const shown = (status.body as { supply: Record<string, Amount> }).supply;
    assert.equal(shown.redeemed!.atomic, report.supply.recomputed.redeemed.atomic);
    assert.equal(
      shown.burned!.atomic,
      report.supply.recomputed.burned.atomic + report.supply.recomputed.redeemed.atomic,
    );
  });

  it('a tampered index is reported and audit exits 1', async () => {
    const rows = await t.service.parts.db.query<{ txid: string; vout: number }>(
      "SELECT txid, vout FROM token_outputs WHERE spent_by IS NULL AND op <> 'burn' ORDER BY score LIMIT 1",
    );
    const row = rows[0]!;
    await t.service.parts.db.query(
      'UPDATE token_outputs SET amount = amount + 7 WHERE txid = $1 AND vout = $2',
      [row.txid, row.vout],
    );
    try {
      const { run, report } = await audit();
      assert.equal(run.code, 1);
      assert.equal(report.ok, false);
      assert.deepEqual(
        report.outputDifferences.map((d) => [d.outpoint, d.field]),
        [[`${row.txid}_${row.vout}`, 'amount']],
      );
      assert.equal(report.balanceDifferences.length, 1);
      assert.deepEqual(
        report.keptBalanceDifferences,
        [],
        'the kept balances follow the outputs, tampered or not',
      );
    } finally {
      await t.service.parts.db.query(
        'UPDATE token_outputs SET amount = amount - 7 WHERE txid = $1 AND vout = $2',
        [row.txid, row.vout],
      );
    }
  });

  it('a kept balance unlike its outputs is reported and audit exits 1', async () => {
    const db = t.service.parts.db;
    // A balance row written around the triggers, and the total with it (as the triggers would
    // have for an output that is not there): the kept figures agree with each other, not with the
    // outputs. Backend 0: the service's folder leaves those rows where they are.
    const write = (amount: number) =>
      db.query(
        `WITH balance AS (
           INSERT INTO address_balance_parts AS p (owner, backend, balance) VALUES ('1Ghost', 0, $1)
           ON CONFLICT (owner, backend) DO UPDATE SET balance = p.balance + EXCLUDED.balance
         )
         INSERT INTO balance_total_parts AS t (backend, total) VALUES (0, $1)
         ON CONFLICT (backend) DO UPDATE SET total = t.total + EXCLUDED.total`,
        [amount],
      );
    await write(9);
    try {
      const { run, report } = await audit();
      assert.equal(run.code, 1);
      assert.equal(report.ok, false);
      assert.deepEqual(report.outputDifferences, []);
      assert.deepEqual(
        report.keptBalanceDifferences.map((d) => [d.address, d.kept.atomic, d.summed.atomic]),
        [['1Ghost', 9, 0]],
      );
      assert.equal(report.keptTotalDifference, null, 'the kept total agrees with the kept balances');
    } finally {
      await write(-9);
    }
    assert.equal((await audit()).report.ok, true);
  });

  it('a kept total unlike the kept balances is reported and audit exits 1', async () => {
    const db = t.service.parts.db;
    const before = await audit();
    assert.equal(before.report.keptTotalDifference, null);
    // The folded total's row written around the triggers (one row: an UPDATE of every row would
    // move the total once per connection that has one).
    const write = (amount: number) =>
      db.query(
        `INSERT INTO balance_total_parts AS t (backend, total) VALUES (0, $1)
         ON CONFLICT (backend) DO UPDATE SET total = t.total + EXCLUDED.total`,
        [amount],
      );
    await write(5);
    try {
      const { run, report } = await audit();
      assert.equal(run.code, 1);
      assert.equal(report.ok, false);
      assert.deepEqual(report.keptBalanceDifferences, []);
      const d = report.keptTotalDifference;
      assert.ok(d !== null);
      assert.equal(d.kept.atomic - d.summed.atomic, 5);
    } finally {
      await write(-5);
    }
    assert.equal((await audit()).report.ok, true);
  });
  it('a kept ticket or event count unlike the table is reported and audit exits 1', async () => {
    const db = t.service.parts.db;
    assert.deepEqual((await audit()).report.ticketCountDifferences, []);
    assert.deepEqual((await audit()).report.eventCountDifferences, []);
    // A write around the triggers: the counts moved, no ticket did.
    await db.query('UPDATE ticket_status_counts SET mined = mined + 2 WHERE backend = 0');
    try {
      const { run, report } = await audit();
      assert.equal(run.code, 1);
      assert.equal(report.ok, false);
      assert.deepEqual(
        report.ticketCountDifferences.map((d) => [d.status, d.kept - d.counted]),
        [['MINED', 2]],
      );
    } finally {
      await db.query('UPDATE ticket_status_counts SET mined = mined - 2 WHERE backend = 0');
    }
    await db.query('UPDATE event_state_counts SET dead = dead + 1 WHERE backend = 0');
    try {
      const { run, report } = await audit();
      assert.equal(run.code, 1);
      assert.deepEqual(
        report.eventCountDifferences.map((d) => [d.state, d.kept - d.counted]),
        [['dead', 1]],
      );
    } finally {
      await db.query('UPDATE event_state_counts SET dead = dead - 1 WHERE backend = 0');
    }
    assert.equal((await audit()).report.ok, true);
  });
});
