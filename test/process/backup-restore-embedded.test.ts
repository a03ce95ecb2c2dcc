// The backup-and-restore runbook (docs/operations.md, runbook 4) for the embedded default, with
// real processes on one data folder: PGlite in `pglite/`, the devnet ledger's history in
// `devnet/` (ADR 0016). A mint and a transfer, mined; stop; copy `pglite/` and the key files as
// the runbook says; start again, a later mint, mined; stop; move the current `pglite/` aside and
// put the copy in its place, leaving `devnet/` as it is; migrate; start. The restored index
// agrees with itself (audit ok) but lacks the later mint; `tokenproxy reconcile` exits 1 naming
// it, `reconcile --repair` ingests it from the ledger's bytes, and then the audit equals the one
// taken before the restore and the ledger's own count and supply, and a second reconcile is clean.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { recomputeOutputs, supplyOf } from '../../src/domain/ledger-audit.js';
import { transferOf, utxosOf } from '../e2e/e2e-http.js';
import { eventually } from '../e2e/support.js';
import { freePort } from '../support/role-process.js';
import { party } from '../support/token-world.js';
import {
  type AuditJson,
  devnetTransactions,
  jsonCli,
  type ReconcileJson,
  runCli,
  startService,
  stopService,
} from './runbook-cli.js';

/** What runbook 4 copies out of the data folder while the service is stopped. */
const KEY_FILES = ['keys.json', 'master.key', 'admin.key'] as const;

interface ConfigJson {
  tokenId: string;
  approver: string;
  feeAddress: string;
  mintAddress: string;
  burnAddress: string;
  fees: { fee: number; min: number; max: number }[];
}

describe('the backup-and-restore runbook on the embedded default (PGlite and the devnet)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tokenproxy-restore-embedded-'));
  const backupDir = mkdtempSync(join(tmpdir(), 'tokenproxy-restore-embedded-backup-'));
  let service: ChildProcess | null = null;

  after(() => {
    if (service !== null && service.exitCode === null) service.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(backupDir, { recursive: true, force: true });
  });

  const start = (port: number): Promise<ChildProcess> => startService(port, dataDir, ['--host', '127.0.0.1']);

  it('copy pglite/, mint, put the copy back, reconcile --repair: the audit equals the ledger', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const { cli, ok } = jsonCli(url, dataDir);
    // PGlite is locked by the service: whether every ticket is mined comes from `status`.
    const allMined = () =>
      eventually(
        async () => {
          const { tickets } = (await ok('status')) as { tickets: Record<string, number> };
          const open = Object.entries(tickets).filter(([status, n]) => status !== 'MINED' && n > 0);
          return open.length === 0 ? true : undefined;
        },
        'every ticket is mined',
        100,
      );
    const alice = party('embedded restore alice');
    const bob = party('embedded restore bob');

    // 1. The service on a fresh data folder; a mint and a transfer, mined.
    service = await start(port);
    const config = (await (await fetch(`${url}/v1/config`)).json()) as ConfigJson;
    await ok('mint', '--to', alice.address, '--amount', '100');
    await ok('mine');
    await allMined();
    const { key } = (await ok('keys', 'create', '--scopes', 'read,submit', '--name', 'restore wallet')) as {
      key: string;
    };
    const amount = 3_000_000n;
    const fee = BigInt(config.fees.find((f) => amount >= BigInt(f.min) && amount <= BigInt(f.max))!.fee);
    const rawtx = transferOf(
      {
        tokenId: config.tokenId,
        approver: new Uint8Array(Buffer.from(config.approver, 'hex')),
        feeAddress: config.feeAddress,
      },
      { from: alice, inputs: await utxosOf(url, key, alice.address), to: bob, amount, fee },
    );
    const sent = await fetch(`${url}/v2/transfer`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ rawtx }),
    });
    assert.equal(sent.status, 200, await sent.clone().text());
    await ok('mine');
    await allMined();
    const backedUp = (await ok('audit')) as AuditJson;
    assert.equal(backedUp.ok, true, JSON.stringify(backedUp));

    // 2. The backup (runbook 4, "Back up", embedded): stop, copy pglite/ and the key files,
    // start again. devnet/ stays where it is.
    await stopService(service);
    service = null;
    cpSync(join(dataDir, 'pglite'), join(backupDir, 'pglite'), { recursive: true });
    for (const file of KEY_FILES) cpSync(join(dataDir, file), join(backupDir, file));
    service = await start(port);

    // 3. After the backup: a mint the copy will not hold.
    const lateMint = (await ok('mint', '--to', party('embedded restore carol').address, '--amount', '7')) as {
      txid: string;
    };
    await ok('mine');
    await allMined();
    const before = (await ok('audit')) as AuditJson;
    assert.equal(before.ok, true);
    assert.equal(before.transactions, backedUp.transactions + 1);

    // 4. Restore (runbook 4, "Restore", embedded): stop; move the current pglite/ aside and put
    // the copy in its place; devnet/ and the key files stay as they are; migrate; start.
    await stopService(service);
    service = null;
    for (const file of KEY_FILES)
      assert.deepEqual(readFileSync(join(dataDir, file)), readFileSync(join(backupDir, file)), file);
    renameSync(join(dataDir, 'pglite'), join(dataDir, 'pglite.before-restore'));
    cpSync(join(backupDir, 'pglite'), join(dataDir, 'pglite'), { recursive: true });
    const migrate = await runCli(['migrate', '--data-dir', dataDir]);
    assert.equal(migrate.code, 0, migrate.stderr);
    const status = await runCli(['migrate', '--status', '--data-dir', dataDir]);
    assert.equal(status.code, 0, `${status.stdout} ${status.stderr}`);
    service = await start(port);

    // 5. The restored index agrees with itself: the audit cannot see what it lacks.
    const restored = (await ok('audit')) as AuditJson;
    assert.equal(restored.ok, true);
    assert.equal(restored.transactions, backedUp.transactions, 'the restored index lacks the late mint');
    assert.deepEqual(restored.supply, backedUp.supply);

    // 6. reconcile reports the difference and exits 1, naming the late mint; writes nothing.
    const found = await cli('reconcile');
    assert.equal(found.code, 1, JSON.stringify(found.json));
    const report = found.json as ReconcileJson;
    assert.equal(report.coverage, 'listed');
    const missing = report.differences.filter((d) => d.kind === 'missing-transaction');
    assert.deepEqual(
      missing.map((d) => d.txid),
      [lateMint.txid],
    );
    assert.equal(missing[0]!.refusal, null);
    assert.deepEqual(
      report.differences.filter((d) => d.kind !== 'missing-transaction' && d.kind !== 'funding-spent'),
      [],
      'only the late mint and the pool output it spent',
    );
    assert.ok(
      report.differences.some((d) => d.kind === 'funding-spent'),
      'the late mint spent a pool output free in the copy',
    );
    assert.deepEqual(
      report.repaired,
      { ingested: [], fundingSpent: [], retracked: [] },
      'no --repair: nothing written',
    );

    // 7. reconcile --repair.
    const repair = await cli('reconcile', '--repair');
    assert.equal(repair.code, 0, JSON.stringify(repair.json));
    const repaired = repair.json as ReconcileJson;
    assert.deepEqual(repaired.repaired.ingested, [lateMint.txid]);
    assert.deepEqual(repaired.remaining, []);

    // 8. The audit equals the one before the restore; a second reconcile finds nothing.
    const audited = (await ok('audit')) as AuditJson;
    assert.equal(audited.ok, true, JSON.stringify(audited));
    assert.equal(audited.transactions, before.transactions);
    assert.deepEqual(audited.supply, before.supply);
    const again = await cli('reconcile');
    assert.equal(again.code, 0, JSON.stringify(again.json));
    const clean = again.json as ReconcileJson;
    assert.deepEqual(clean.differences, []);
    assert.deepEqual(clean.repaired, { ingested: [], fundingSpent: [], retracked: [] });

    // 9. The ledger's own count and supply, recomputed from every transaction in devnet/ once
    // the service is stopped: the restore did not rewind the ledger.
    await stopService(service);
    service = null;
    const txs = await devnetTransactions(join(dataDir, 'devnet'));
    assert.ok(
      txs.some((t) => t.txid === lateMint.txid),
      'devnet/ still holds the late mint',
    );
    const outputs = recomputeOutputs(txs, config.tokenId);
    const tokenTxs = new Set([...outputs.keys()].map((k) => k.slice(0, 64)));
    assert.equal(
      tokenTxs.size,
      audited.transactions,
      'the index holds every token transaction of the ledger',
    );
    const ledger = supplyOf(outputs, config);
    const index = audited.supply.index as Record<string, { atomic: number }>;
    for (const part of ['circulating', 'treasury', 'burned', 'redeemed'] as const)
      assert.equal(String(ledger[part]), String(index[part]!.atomic), part);
  });
});
