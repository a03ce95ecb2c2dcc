// A ticket the network accepted, then dropped (a reorg where a rival spending the same funding
// output won): it ends FAILED and its token inputs are free again, but its funding output stays
// out of the pool, since the rival may have spent it (offered again, it would fail every
// transfer that picked it).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Transaction } from '@bsv/sdk';
import { knownFundingOutput } from '../../src/store/operator/console-search.js';
import { applyLedgerStatus } from '../../src/usecases/track/apply-ledger-status.js';
import { startTestService, type TestService } from '../e2e/support.js';
import { acceptedTransfer } from './accepted-transfer.js';

describe('a ticket failed after the network accepted it', () => {
  let t: TestService;
  let ticket: string;
  let txid: string;
  let fundingOutpoint: { txid: string; vout: number };

  const statusOf = async () =>
    (
      await t.service.parts.db.query<{ status: string }>('SELECT status FROM tickets WHERE id = $1', [ticket])
    )[0]?.status;

  before(async () => {
    t = await startTestService(['--tracker-poll-ms', '60000']);
    const { parts } = t.service;
    ({ ticket } = await acceptedTransfer(t, 'failed after accepted'));
    const [row] = await parts.db.query<{ txid: string; raw_tx: Uint8Array }>(
      'SELECT k.txid, t.raw_tx FROM tickets k JOIN transactions t ON t.txid = k.txid WHERE k.id = $1',
      [ticket],
    );
    txid = row!.txid;
    const inputs = Transaction.fromBinary(Array.from(row!.raw_tx)).inputs;
    const funding = await parts.db.query<{ txid: string; vout: number }>(
      'SELECT txid, vout FROM funding_outputs',
    );
    const used = funding.find((f) =>
      inputs.some((i) => i.sourceTXID === f.txid && i.sourceOutputIndex === f.vout),
    );
    assert.ok(used !== undefined, 'the transfer spends a funding output');
    fundingOutpoint = used;
  });

  after(() => t?.stop());

  it('ends FAILED, frees its token input, and keeps its funding output out of the pool', async () => {
    const { db, ctx } = t.service.parts;
    await applyLedgerStatus(ctx, txid, {
      status: { kind: 'rejected', reason: 'replaced by a rival in a reorg' },
    });
    assert.equal(await statusOf(), 'FAILED');
    const spent = await db.query<{ n: string }>(
      'SELECT count(*) AS n FROM token_outputs WHERE spent_by = $1',
      [txid],
    );
    assert.equal(spent[0]?.n, '0');
    // Left as the claim wrote it (ADR 0019): not available, and shown spent.
    const [funding] = await db.query<{ state: string }>(
      'SELECT state FROM funding_outputs WHERE txid = $1 AND vout = $2',
      [fundingOutpoint.txid, fundingOutpoint.vout],
    );
    assert.equal(funding?.state, 'reserved');
    assert.equal((await knownFundingOutput(db, fundingOutpoint.txid, fundingOutpoint.vout))?.state, 'spent');
  });
});
