// Issue 12: a transfer the service cosigned, handed back and then released as FAILED can still
// be mined (whoever holds the signed transaction broadcasts it, or the ledger only lost it for
// a while). `tokenproxy audit` (GET /v2/admin/audit) asks the ledger about every failed
// transaction and reports those it holds after all, in `failedOnLedger`, with ok false.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createApiKey } from '../../src/store/api-keys-store.js';
import { applyLedgerStatus } from '../../src/usecases/apply-ledger-status.js';
import { mintTokens } from '../../src/usecases/mint-tokens.js';
import { http, transferOf, utxosOf } from '../e2e/e2e-http.js';
import { eventually, startTestService, type TestService } from '../e2e/support.js';
import { party } from '../support/token-world.js';

describe('audit: a failed transaction mined anyway', () => {
  let t: TestService;
  let txid: string;

  before(async () => {
    t = await startTestService(['--tracker-poll-ms', '60000']);
    const { parts } = t.service;
    const holder = party('audit failed mined');
    const { key } = await createApiKey(parts.db, parts.masterKey, { name: 'w', scopes: ['read', 'submit'] });
    await mintTokens(parts.ctx, parts.keys.mint, { to: holder.address, amount: 50_000n });
    await parts.devnet!.mine(1);
    const [output] = await eventually(async () => {
      const found = await utxosOf(t.url, key, holder.address);
      return found.length === 1 ? found : undefined;
    }, 'the minted output');
    const rawtx = transferOf(parts.ctx.token, {
      from: holder,
      inputs: [output!],
      to: party('audit failed mined recipient'),
      amount: 1_000n,
      fee: 100n,
    });
    const answer = await http(t.url, 'POST', '/v2/transfer', { key, body: { rawtx } });
    assert.equal(answer.status, 200, answer.text);
    const ticket = answer.text;
    const row = await eventually(async () => {
      const [r] = await parts.db.query<{ txid: string; status: string }>(
        'SELECT txid, status FROM tickets WHERE id = $1',
        [ticket],
      );
      return r?.status === 'SUCCESS' ? r : undefined;
    }, 'the ledger took it');
    txid = row.txid;
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
