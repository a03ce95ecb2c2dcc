// Store invariants shared by the restart, kill and chaos scenarios: what must hold of the
// index whatever happened to the process, the database or the ledger.
import assert from 'node:assert/strict';
import { Transaction } from '@bsv/sdk';
import type { Db } from '../../src/store/db/db.js';
import { keptBalanceDrift } from '../../src/store/wallets/address-balances.js';

/**
 * Each output is spent by the one live transaction that spends it, or by none; nothing stays
 * reserved; every kept balance is its owner's spendable sum.
 */
export async function expectNoOutputBothSpentAndUnspent(db: Db): Promise<void> {
  const live = await db.query<{ txid: string; raw_tx: Uint8Array }>(
    "SELECT txid, raw_tx FROM transactions WHERE state <> 'failed'",
  );
  const spentBy = new Map<string, string>();
  for (const row of live) {
    const tx = Transaction.fromBinary(Array.from(row.raw_tx));
    assert.equal(tx.id('hex'), row.txid);
    for (const input of tx.inputs) {
      const outpoint = `${input.sourceTXID}_${input.sourceOutputIndex}`;
      assert.equal(spentBy.get(outpoint), undefined, `${outpoint} spent by two transactions`);
      spentBy.set(outpoint, row.txid);
    }
  }
  const outputs = await db.query<{
    txid: string;
    vout: number;
    spent_by: string | null;
    reserved_by: string | null;
  }>('SELECT txid, vout, spent_by, reserved_by FROM token_outputs');
  for (const o of outputs) {
    const outpoint = `${o.txid}_${o.vout}`;
    assert.equal(
      o.spent_by,
      spentBy.get(outpoint) ?? null,
      `${outpoint}: spent_by and the transactions disagree`,
    );
    assert.equal(o.reserved_by, null, `${outpoint} still reserved`);
  }
  const funding = await db.query<{ txid: string; vout: number; state: string }>(
    'SELECT txid, vout, state FROM funding_outputs',
  );
  for (const f of funding) {
    const outpoint = `${f.txid}_${f.vout}`;
    assert.notEqual(f.state, 'reserved', `funding output ${outpoint} stays reserved`);
    if (f.state === 'available')
      assert.equal(spentBy.get(outpoint), undefined, `funding output ${outpoint} available yet spent`);
  }
  assert.deepStrictEqual(await keptBalanceDrift(db), [], 'kept balances and the outputs disagree');
}
