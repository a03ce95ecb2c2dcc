// Store invariants shared by the restart, kill and chaos scenarios: what must hold of the
// index whatever happened to the process, the database or the ledger.
import assert from 'node:assert/strict';
import { Transaction } from '@bsv/sdk';
import { EVENT_COUNTS } from '../../src/store/callbacks/event-counts.js';
import type { Db } from '../../src/store/db/db.js';
import { keptCountDrift } from '../../src/store/db/kept-counts.js';
import { TICKET_COUNTS } from '../../src/store/tickets/ticket-counts.js';
import { keptBalanceDrift } from '../../src/store/wallets/address-balances.js';
import { keptTotalDrift } from '../../src/store/wallets/kept-supply.js';

/**
 * Each output is spent by the one live transaction that spends it, or by none; nothing stays
 * reserved (an output's reserved_by, and a funding output's 'reserved', name a ticket that left
 * BROADCASTING for the network: ADR 0019); every kept balance is its owner's spendable sum, and
 * the kept total is their sum; the kept ticket and event counts are the tables'; an output is
 * marked seized exactly when a seizure took it, and no seized output is spent.
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
    ticket_txid: string | null;
    ticket_status: string | null;
  }>(
    `SELECT o.txid, o.vout, o.spent_by, o.reserved_by::text AS reserved_by, k.txid AS ticket_txid, k.status AS ticket_status
       FROM token_outputs o LEFT JOIN tickets k ON k.id = o.reserved_by`,
  );
  for (const o of outputs) {
    const outpoint = `${o.txid}_${o.vout}`;
    assert.equal(
      o.spent_by,
      spentBy.get(outpoint) ?? null,
      `${outpoint}: spent_by and the transactions disagree`,
    );
    if (o.reserved_by !== null) {
      assert.equal(o.ticket_txid, o.spent_by, `${outpoint} reserved by a ticket of another transaction`);
      assert.ok(
        o.ticket_status === 'SUCCESS' || o.ticket_status === 'MINED',
        `${outpoint} still reserved (its ticket ${o.ticket_status ?? 'gone'})`,
      );
    }
  }
  const funding = await db.query<{ txid: string; vout: number; state: string; ticket_status: string | null }>(
    `SELECT f.txid, f.vout, f.state, k.status AS ticket_status
       FROM funding_outputs f LEFT JOIN tickets k ON k.id = f.reserved_by`,
  );
  for (const f of funding) {
    const outpoint = `${f.txid}_${f.vout}`;
    if (f.state === 'reserved')
      assert.ok(
        f.ticket_status !== null && f.ticket_status !== 'BROADCASTING',
        `funding output ${outpoint} stays reserved (its ticket ${f.ticket_status ?? 'gone'})`,
      );
    if (f.state === 'available')
      assert.equal(spentBy.get(outpoint), undefined, `funding output ${outpoint} available yet spent`);
  }
  const seized = await db.query<{
    outpoint: string;
    marked: boolean;
    taken: boolean;
    spent_by: string | null;
  }>(
    `SELECT o.txid || '_' || o.vout AS outpoint, o.seized AS marked, s.txid IS NOT NULL AS taken, o.spent_by
       FROM token_outputs o FULL JOIN seized_outputs s ON s.txid = o.txid AND s.vout = o.vout
      WHERE o.seized OR s.txid IS NOT NULL`,
  );
  for (const o of seized) {
    assert.equal(o.marked, o.taken, `${o.outpoint}: the seized mark and seized_outputs disagree`);
    assert.equal(o.spent_by, null, `${o.outpoint} was seized and spent`);
  }
  assert.deepStrictEqual(await keptBalanceDrift(db), [], 'kept balances and the outputs disagree');
  assert.equal(await keptTotalDrift(db), null, 'the kept total and the kept balances disagree');
  assert.deepStrictEqual(
    await keptCountDrift(db, TICKET_COUNTS),
    [],
    'the kept ticket counts and the tickets disagree',
  );
  assert.deepStrictEqual(
    await keptCountDrift(db, EVENT_COUNTS),
    [],
    'the kept event counts and the events disagree',
  );
}
