// A failure reaches spenders that have no ticket, on each database. A record without a ticket is
// one `tokenproxy reconcile --repair` ingested from the ledger. When the transaction it spends
// from fails, the outputs it spends leave the index; a record spending them that lived on would
// be tokens out of nothing (the audit's conservation check). So it fails with its parent: its
// record is failed with a new score, its own outputs leave the index, its other inputs are
// released, and the tickets spending its outputs fail too. One in a block fails nothing, as a
// MINED ticket does not.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Db } from '../../src/store/db/db.js';
import { applyLedgerStatuses } from '../../src/usecases/track/apply-ledger-status.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { randomTxid, seedTicket, seedTransaction } from '../support/seed-store.js';
import { trackerContext } from '../support/tracker-context.js';

const NOW = new Date('2026-11-23T12:00:00.000Z');
const blockHash = (n: number) => n.toString(16).padStart(64, '0');

/** genesis (mined) -> parent (a SUCCESS ticket) -> ticketless record -> child (a SUCCESS ticket). */
async function chain(db: Db, ticketless: { mined: boolean }) {
  const genesis = await seedTransaction(db, {
    outputs: [
      { owner: 'alice', amount: 100n },
      { owner: 'dave', amount: 40n },
    ],
    block: { height: 1, idx: 1, hash: blockHash(1), time: 1 },
  });
  const parentTxid = randomTxid();
  await seedTicket(db, { txid: parentTxid, status: 'SUCCESS', createdAt: new Date(NOW.getTime() - 60_000) });
  const parent = await seedTransaction(db, {
    txid: parentTxid,
    spends: [genesis.outpoints[0]!],
    outputs: [{ owner: 'bob', amount: 100n }],
  });
  // No ticket: a record the reconcile ingested. It also spends an output that stays live.
  const orphan = await seedTransaction(db, {
    spends: [parent.outpoints[0]!, genesis.outpoints[1]!],
    outputs: [{ owner: 'carol', amount: 140n }],
    ...(ticketless.mined && { block: { height: 7, idx: 2, hash: blockHash(7), time: 7 } }),
  });
  const childTxid = randomTxid();
  const childId = await seedTicket(db, {
    txid: childTxid,
    status: 'SUCCESS',
    createdAt: new Date(NOW.getTime() - 30_000),
  });
  await seedTransaction(db, {
    txid: childTxid,
    spends: [orphan.outpoints[0]!],
    outputs: [{ owner: 'erin', amount: 140n }],
  });
  return { genesis, parentTxid, orphan, childTxid, childId };
}

const stateOf = async (db: Db, txid: string) =>
  (
    await db.query<{ state: string; score: string }>(
      'SELECT state, score::text FROM transactions WHERE txid = $1',
      [txid],
    )
  )[0]!;

const outputsOf = async (db: Db, txid: string) =>
  (await db.query('SELECT 1 FROM token_outputs WHERE txid = $1', [txid])).length;

describeOnEachDb('a failure reaching a spender without a ticket', (fresh) => {
  it('fails the record, removes its outputs, releases its other inputs and fails its spenders', async () => {
    const db = fresh.db;
    const { genesis, parentTxid, orphan, childTxid, childId } = await chain(db, { mined: false });
    const before = await stateOf(db, orphan.txid);

    await applyLedgerStatuses(trackerContext(db, NOW), [
      { txid: parentTxid, view: { status: { kind: 'rejected', reason: 'double spend' } } },
    ]);

    const after = await stateOf(db, orphan.txid);
    assert.equal(after.state, 'failed', 'the ticketless record fails with the transaction it spends from');
    assert.ok(BigInt(after.score) > BigInt(before.score), 'with a new score, so the feed reports it');
    assert.equal(await outputsOf(db, orphan.txid), 0, 'its outputs leave the index');
    const [dave] = await db.query<{ spent_by: string | null }>(
      'SELECT spent_by FROM token_outputs WHERE txid = $1 AND vout = 1',
      [genesis.txid],
    );
    assert.equal(dave!.spent_by, null, 'its input that still exists is released');
    const [child] = await db.query<{ status: string }>('SELECT status FROM tickets WHERE id = $1', [childId]);
    assert.equal(child!.status, 'FAILED', 'a ticket spending its outputs fails too');
    assert.equal((await stateOf(db, childTxid)).state, 'failed');
    assert.equal(await outputsOf(db, childTxid), 0);
    const [live] = await db.query<{ total: string }>(
      `SELECT coalesce(sum(o.amount), 0)::text AS total
         FROM token_outputs o JOIN transactions t ON t.txid = o.txid
        WHERE o.spent_by IS NULL AND t.state <> 'failed'`,
    );
    assert.equal(live!.total, '140', 'what is unspent is what genesis made: alice 100 again and dave 40');
  });

  it('fails nothing when the ticketless spender is in a block', async () => {
    const db = fresh.db;
    const { parentTxid, orphan, childId } = await chain(db, { mined: true });

    await applyLedgerStatuses(trackerContext(db, NOW), [
      { txid: parentTxid, view: { status: { kind: 'rejected', reason: 'stale callback' } } },
    ]);

    assert.equal((await stateOf(db, orphan.txid)).state, 'mined');
    assert.equal(await outputsOf(db, orphan.txid), 1);
    const [parent] = await db.query<{ status: string }>('SELECT status FROM tickets WHERE txid = $1', [
      parentTxid,
    ]);
    assert.equal(parent!.status, 'SUCCESS', 'the rejection contradicts a block: looked at again instead');
    const [child] = await db.query<{ status: string }>('SELECT status FROM tickets WHERE id = $1', [childId]);
    assert.equal(child!.status, 'SUCCESS');
  });
});
