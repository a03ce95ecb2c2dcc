// The backup-and-restore runbook (docs/operations.md, "Back up and restore") end to end, with
// real processes on real PostgreSQL and the devnet ledger in the data folder: mints and a burn,
// pg_dump, another mint and burn, stop, pg_restore into a new database, migrate, start against
// the same devnet. The restored index agrees with itself (audit ok) but lacks what the ledger
// mined after the dump; `tokenproxy reconcile` reports it, `reconcile --repair` ingests it from
// the ledger's bytes, and then the audit equals the ledger (transactions, supply), a second
// reconcile finds nothing, and a mint after the restore is mined.
// Runs only when TEST_DATABASE_URL is set.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { recomputeOutputs, supplyOf } from '../../src/domain/ledger-audit.js';
import { eventually } from '../e2e/support.js';
import { freePort } from '../support/role-process.js';
import { freshDatabase, testDatabaseUrl } from '../support/test-databases.js';
import { party } from '../support/token-world.js';
import {
  type AuditJson,
  devnetTransactions,
  jsonCli,
  type ReconcileJson,
  run,
  runCli,
  startService,
  stopService,
} from './runbook-cli.js';

describe('the backup-and-restore runbook on PostgreSQL and the devnet', {
  skip: testDatabaseUrl === undefined,
}, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tokenproxy-restore-'));
  const dumpFile = join(dataDir, 'tokenproxy.dump');
  const dropped: (() => Promise<void>)[] = [];
  let service: ChildProcess | null = null;

  after(async () => {
    if (service !== null && service.exitCode === null) service.kill('SIGKILL');
    for (const drop of dropped) await drop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  });

  const start = (databaseUrl: string, port: number): Promise<ChildProcess> =>
    startService(port, dataDir, ['--database-url', databaseUrl]);

  it('dump, mint, restore, reconcile --repair: the audit equals the ledger', async () => {
    const port = await freePort();
    const { cli, ok } = jsonCli(`http://127.0.0.1:${port}`, dataDir);
    const allMined = (url: string) =>
      eventually(
        async () => {
          const client = new pg.Client({ connectionString: url });
          await client.connect();
          try {
            const { rows } = await client.query<{ n: string }>(
              "SELECT count(*) AS n FROM tickets WHERE status <> 'MINED'",
            );
            return rows[0]!.n === '0' ? true : undefined;
          } finally {
            await client.end();
          }
        },
        'every ticket is mined',
        600,
      );

    // 1. A service on its database; mints and a burn, mined.
    const first = await freshDatabase(testDatabaseUrl!, 'restore_a');
    dropped.push(first.drop);
    service = await start(first.url, port);
    await ok('mint', '--to', party('restore alice').address, '--amount', '100');
    await ok('mint', '--to', party('restore bob').address, '--amount', '40');
    await ok('burn', '--amount', '5');
    await ok('mine');
    await allMined(first.url);

    // 2. The backup.
    const dump = await run('pg_dump', ['--format=custom', `--file=${dumpFile}`, first.url]);
    assert.equal(dump.code, 0, dump.stderr);

    // 3. After the dump: a mint and a burn the backup will not hold.
    const lateMint = (await ok('mint', '--to', party('restore carol').address, '--amount', '7')) as {
      txid: string;
    };
    const lateBurn = (await ok('burn', '--amount', '2')) as { txid: string };
    await ok('mine');
    await allMined(first.url);
    const before = (await ok('audit')) as AuditJson;
    assert.equal(before.ok, true);

    // 4. Stop; restore the dump into a new database; migrate; start against the same devnet.
    await stopService(service);
    service = null;
    const second = await freshDatabase(testDatabaseUrl!, 'restore_b');
    dropped.push(second.drop);
    const restore = await run('pg_restore', [
      '--no-owner',
      '--exit-on-error',
      `--dbname=${second.url}`,
      dumpFile,
    ]);
    assert.equal(restore.code, 0, restore.stderr);
    const migrate = await runCli(['migrate', '--database-url', second.url, '--data-dir', dataDir]);
    assert.equal(migrate.code, 0, migrate.stderr);
    service = await start(second.url, port);

    // 5. The restored index agrees with itself: the audit cannot see what it lacks.
    const restored = (await ok('audit')) as AuditJson;
    assert.equal(restored.ok, true);
    assert.equal(
      restored.transactions,
      before.transactions - 2,
      'the restored index lacks the late mint and burn',
    );

    // 6. reconcile reports the difference and exits 1.
    const found = await cli('reconcile');
    assert.equal(found.code, 1, JSON.stringify(found.json));
    const report = found.json as ReconcileJson;
    assert.equal(report.coverage, 'listed');
    const missing = report.differences.filter((d) => d.kind === 'missing-transaction');
    assert.deepEqual(missing.map((d) => d.txid).sort(), [lateMint.txid, lateBurn.txid].sort());
    assert.ok(
      missing.every((d) => d.refusal === null),
      JSON.stringify(missing),
    );
    const fundingSpent = report.differences.filter((d) => d.kind === 'funding-spent');
    assert.equal(fundingSpent.length, 2, 'the late transactions spent two pool outputs free in the dump');
    assert.deepEqual(
      report.repaired,
      { ingested: [], fundingSpent: [], retracked: [] },
      'no --repair: nothing written',
    );

    // 7. reconcile --repair.
    const repair = await cli('reconcile', '--repair');
    assert.equal(repair.code, 0, JSON.stringify(repair.json));
    const repaired = repair.json as ReconcileJson;
    assert.deepEqual(repaired.repaired.ingested.sort(), [lateMint.txid, lateBurn.txid].sort());
    assert.deepEqual(repaired.remaining, []);

    // 8. The audit equals the ledger; a second reconcile finds nothing and changes nothing.
    const after = (await ok('audit')) as AuditJson;
    assert.equal(after.ok, true, JSON.stringify(after));
    assert.equal(after.transactions, before.transactions);
    assert.deepEqual(after.supply, before.supply);
    const again = await cli('reconcile', '--repair');
    assert.equal(again.code, 0, JSON.stringify(again.json));
    const second2 = again.json as ReconcileJson;
    assert.deepEqual(second2.differences, []);
    assert.deepEqual(second2.repaired, { ingested: [], fundingSpent: [], retracked: [] });

    // 9. Service goes on: a mint after the restore is mined.
    await ok('mint', '--to', party('restore dave').address, '--amount', '1');
    await ok('mine');
    await allMined(second.url);
    const last = (await ok('audit')) as AuditJson;
    assert.equal(last.ok, true);
    assert.equal(last.transactions, before.transactions + 1);

    // 10. The ledger's own count and supply, recomputed from every transaction of the devnet's
    // folder once the service is stopped.
    const config = (await (await fetch(`http://127.0.0.1:${port}/v1/config`)).json()) as {
      tokenId: string;
      mintAddress: string;
      burnAddress: string;
    };
    await stopService(service);
    service = null;
    const txs = await devnetTransactions(join(dataDir, 'devnet'));
    const outputs = recomputeOutputs(txs, config.tokenId);
    const tokenTxs = new Set([...outputs.keys()].map((k) => k.slice(0, 64)));
    assert.equal(tokenTxs.size, last.transactions, 'the index holds every token transaction of the ledger');
    const ledger = supplyOf(outputs, config);
    const index = last.supply.index as Record<string, { atomic: number }>;
    for (const part of ['circulating', 'treasury', 'burned', 'redeemed'] as const)
      assert.equal(String(ledger[part]), String(index[part]!.atomic), part);
  });
});
