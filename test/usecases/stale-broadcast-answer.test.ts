// A broadcast's answer can arrive after the tracker recorded the block (four api instances and
// a tracker showed it: mined, then unconfirmed again, then mined). Its `mempool` must not take
// a MINED ticket back; the tracker's own `mempool` (a reorg) still does.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiContextOf } from '../../src/compose.js';
import type { Ledger } from '../../src/ledger/port.js';
import { broadcastTicket } from '../../src/usecases/submit/broadcast-ticket.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import { applyLedgerStatus } from '../../src/usecases/track/apply-ledger-status.js';
import { eventually, startTestService, type TestService } from '../e2e/support.js';
import { party } from '../support/token-world.js';

describe('a late broadcast answer', () => {
  let t: TestService;
  let txid: string;
  let raw: Uint8Array;

  const state = async () => {
    const rows = await t.service.parts.db.query<{ status: string; state: string; height: number }>(
      'SELECT k.status, x.state, x.height FROM tickets k JOIN transactions x ON x.txid = k.txid WHERE k.txid = $1',
      [txid],
    );
    return rows[0]!;
  };

  before(async () => {
    // The devnet's pushes bring MINED; a slow poll keeps the tracker from undoing the second check.
    t = await startTestService(['--tracker-poll-ms', '60000']);
    const { parts } = t.service;
    const minted = await mintTokens(apiContextOf(parts), parts.keys.mint, {
      to: party('late answer').address,
      amount: 5n,
    });
    txid = minted.txid;
    await parts.devnet!.mine(1);
    await eventually(async () => ((await state()).status === 'MINED' ? true : undefined), 'the mint MINED');
    const rows = await parts.db.query<{ raw_tx: Uint8Array }>(
      'SELECT raw_tx FROM transactions WHERE txid = $1',
      [txid],
    );
    raw = rows[0]!.raw_tx;
  });

  after(() => t?.stop());

  it('saying mempool leaves a MINED ticket and its block as they are', async () => {
    const before = await state();
    assert.equal(before.state, 'mined');
    const late: Pick<Ledger, 'broadcast'> = {
      broadcast: async () => ({ ok: true, txid, status: { kind: 'mempool' } }),
    };
    const ctx = { ...t.service.parts.ctx, ledger: { ...t.service.parts.ledger, ...late } as Ledger };
    const outcome = await broadcastTicket(ctx, txid, raw);
    assert.equal(outcome.kind, 'accepted');
    assert.deepEqual(await state(), before);
  });

  it('the tracker seeing it back in the mempool (a reorg) still takes it back', async () => {
    await applyLedgerStatus(t.service.parts.ctx, txid, { status: { kind: 'mempool' } });
    const now = await state();
    assert.equal(now.status, 'SUCCESS');
    assert.equal(now.state, 'unconfirmed');
  });
});
