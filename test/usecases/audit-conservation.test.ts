// The audit adds the recomputed supply up, on a running service: a live transaction that spends
// what no live transaction created (its parent failed and it lived on, say a record the
// reconcile ingested) makes tokens out of nothing, though the index and the recomputation
// agree. Here the parent (a mint) is failed by hand the way the tracker fails one: its record
// failed, its outputs deleted, its input released; its child transfer stays live.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { auditLedger } from '../../src/usecases/supply/audit-ledger.js';
import { startTestService, type TestService } from '../e2e/support.js';
import { acceptedTransfer } from './accepted-transfer.js';

describe('the audit of supply conservation', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService(['--tracker-poll-ms', '60000']);
  });
  after(() => t?.stop());

  it('reports a supply that no longer adds up to what the deploy minted', async () => {
    const { db, ctx } = t.service.parts;
    const { txid } = await acceptedTransfer(t, 'audit conservation');
    const clean = await auditLedger(db, ctx.token);
    assert.equal(clean.ok, true, 'clean before');
    assert.equal(clean.conservationDifference, null);

    const [parent] = await db.query<{ txid: string }>(
      'SELECT DISTINCT o.txid FROM token_outputs o WHERE o.spent_by = $1',
      [txid],
    );
    const mint = parent!.txid;
    const [minted] = await db.query<{ amount: string }>(
      "SELECT sum(amount)::text AS amount FROM token_outputs WHERE txid = $1 AND op <> 'burn'",
      [mint],
    );
    await db.transaction(async (tx) => {
      await tx.query("UPDATE transactions SET state = 'failed' WHERE txid = $1", [mint]);
      await tx.query('UPDATE token_outputs SET spent_by = NULL, reserved_by = NULL WHERE spent_by = $1', [
        mint,
      ]);
      await tx.query('DELETE FROM token_outputs WHERE txid = $1', [mint]);
    });

    const report = await auditLedger(db, ctx.token);
    assert.deepEqual(report.outputDifferences, [], 'the index and the recomputation agree');
    assert.equal(report.ok, false);
    const drift = report.conservationDifference;
    assert.ok(drift !== null, 'the supply does not add up');
    // The child's outputs: what it spent of the failed mint, made out of nothing.
    const spentOfMint = await db.query<{ amount: string }>(
      'SELECT sum(amount)::text AS amount FROM token_outputs WHERE txid = $1',
      [txid],
    );
    assert.equal(drift.total - drift.genesis, BigInt(spentOfMint[0]!.amount));
    assert.ok(BigInt(minted!.amount) > 0n);
  });
});
