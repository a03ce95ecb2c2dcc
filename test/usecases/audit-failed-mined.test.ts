// Issue 12: a transfer the service cosigned, handed back and then released as FAILED can still
// be mined (whoever holds the signed transaction broadcasts it, or the ledger only lost it for
// a while). `tokenproxy audit` (GET /v2/admin/audit) asks the ledger about every failed
// transaction and reports those it holds after all, in `failedOnLedger`, with ok false.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { applyLedgerStatus } from '../../src/usecases/track/apply-ledger-status.js';
import { http } from '../e2e/e2e-http.js';
import { startTestService, type TestService } from '../e2e/support.js';
import { acceptedTransfer } from './accepted-transfer.js';

describe('audit: a failed transaction mined anyway', () => {
  let t: TestService;
  let txid: string;

  before(async () => {
    t = await startTestService(['--tracker-poll-ms', '60000']);
    ({ txid } = await acceptedTransfer(t, 'audit failed mined'));
  });

  after(() => t?.stop());

  it('is clean before, and reports the failed transaction the ledger mined after all', async () => {
    const { ctx, devnet } = t.service.parts;
    const clean = await http(t.url, 'GET', '/v2/admin/audit', { key: t.adminKey });
    assert.equal(clean.status, 200, clean.text);
    assert.equal((clean.json as { ok: boolean }).ok, true, clean.text);

    // The service gives up on it (inputs released) while the ledger keeps it, then mines it.
    await applyLedgerStatus(ctx, txid, { status: { kind: 'rejected', reason: 'lost by the ledger' } });
    await devnet!.mine(1);
    const report = await http(t.url, 'GET', '/v2/admin/audit', { key: t.adminKey });
    assert.equal(report.status, 200, report.text);
    const body = report.json as {
      ok: boolean;
      failedOnLedger?: { txid: string; status: string; height: number }[];
    };
    assert.equal(body.ok, false, report.text);
    assert.equal(body.failedOnLedger?.length, 1, report.text);
    assert.equal(body.failedOnLedger[0]!.txid, txid);
    assert.equal(body.failedOnLedger[0]!.status, 'mined');
    assert.ok(body.failedOnLedger[0]!.height > 0);
  });
});
