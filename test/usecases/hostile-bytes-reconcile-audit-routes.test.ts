// The admin routes that read raw bytes, on the in-process service (the embedded devnet, on
// PGlite, and PostgreSQL when TEST_DATABASE_URL is set): POST /v2/admin/reconcile takes an
// operator's `rawtxs`, GET /v2/admin/audit reads every stored record. Bytes announcing 16
// million inputs in 9 (or four billion in 15) made @bsv/sdk allocate until the service died of
// heap exhaustion. Now reconcile answers 200 and counts them as bytes that do not parse (as it
// always did such bytes), and the audit answers 200, not ok, listing the record. The parser
// tripwire fails the test, not the runner's memory, on code without the guard.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { txidOf } from '../../src/crypto/txid.js';
import { http } from '../e2e/e2e-http.js';
import { HOSTILE, parsedSafely } from '../support/parser-tripwire.js';
import { seedTransaction } from '../support/seed-store.js';
import { describeServiceOnEachDb } from '../support/service-on-each-db.js';

const hex = (raw: Uint8Array) => Buffer.from(raw).toString('hex');

describeServiceOnEachDb('admin routes: bytes announcing more inputs than they hold', [], (suite) => {
  it('reconcile answers 200 at once, the given bytes counted as not parsing', async () => {
    const { t } = suite;
    const answer = await parsedSafely(() =>
      http(t.url, 'POST', '/v2/admin/reconcile', { key: t.adminKey, body: { rawtxs: HOSTILE.map(hex) } }),
    );
    assert.equal(answer.status, 200, answer.text);
    const hostileTxids = HOSTILE.map(txidOf);
    const named = (answer.json as { differences: { txid?: string }[] }).differences.filter((d) =>
      hostileTxids.includes(d.txid ?? ''),
    );
    assert.deepEqual(named, []);
  });

  it('the audit answers 200, not ok, listing the unreadable record', async () => {
    const { t } = suite;
    const { db } = t.service.parts;
    const clean = await http(t.url, 'GET', '/v2/admin/audit', { key: t.adminKey });
    assert.equal((clean.json as { ok: boolean }).ok, true, clean.text);
    const { txid } = await seedTransaction(db, { rawTx: HOSTILE[0] });
    try {
      const report = await parsedSafely(() => http(t.url, 'GET', '/v2/admin/audit', { key: t.adminKey }));
      assert.equal(report.status, 200, report.text);
      const body = report.json as { ok: boolean; unreadableTransactions: unknown[] };
      assert.equal(body.ok, false);
      assert.deepEqual(body.unreadableTransactions, [
        { txid, reason: 'input count larger than the bytes can hold' },
      ]);
    } finally {
      await db.query('DELETE FROM transactions WHERE txid = $1', [txid]);
    }
  });
});
