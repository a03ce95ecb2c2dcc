// A submission's reservations end with its ticket (docs/adr/0019-reservations-end-with-their-ticket.md),
// on both databases: the claim writes a token input reserved and spent and a funding output
// 'reserved'; the network taking the transaction writes neither row again, and every read shows
// them spent from the ticket's status; a failure gives the funding output back to the pool only
// when the network never took it (its ticket still BROADCASTING), whether the taking was seen in
// an earlier batch or in the failing batch itself.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Db } from '../../src/store/db/db.js';
import { fundingPoolLevel } from '../../src/store/funding/funding-pool.js';
import { knownFundingOutput, knownOutput } from '../../src/store/operator/console-search.js';
import { submissionLookups } from '../../src/store/submissions/submission-lookups.js';
import { tokenOutputsByOutpoint } from '../../src/store/wallets/wallet-queries.js';
import type { ServiceContext } from '../../src/usecases/context.js';
import { applyLedgerStatuses, type LedgerView } from '../../src/usecases/track/apply-ledger-status.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { randomTxid, seedTicket, seedTransaction } from '../support/seed-store.js';
import { trackerContext } from '../support/tracker-context.js';

const NOW = new Date('2026-11-27T12:00:00.000Z');

const contextOn = (db: Db): ServiceContext => trackerContext(db, NOW);

const accepted: LedgerView = { status: { kind: 'mempool' }, fromBroadcast: true };
const rejected: LedgerView = { status: { kind: 'rejected', reason: 'double spent' } };

/** A BROADCASTING ticket whose transaction spends a fresh token output, with a reserved funding output. */
async function claimed(db: Db) {
  const parent = await seedTransaction(db, {
    outputs: [{ owner: 'alice', amount: 100n }],
    block: { height: 1, idx: 1, hash: '01'.repeat(32), time: 1 },
  });
  const txid = randomTxid();
  const id = await seedTicket(db, { txid, status: 'BROADCASTING', createdAt: NOW });
  await seedTransaction(db, {
    txid,
    spends: [parent.outpoints[0]!],
    outputs: [{ owner: 'bob', amount: 100n }],
    ticketId: id,
  });
  const funding = { txid: randomTxid(), vout: 0 };
  await db.query(
    `INSERT INTO funding_outputs (txid, vout, satoshis, script, state, reserved_by)
     VALUES ($1, 0, 500, '\\x00', 'reserved', $2)`,
    [funding.txid, id],
  );
  return { id, txid, input: parent.outpoints[0]!, funding };
}

describeOnEachDb('reservations end with their ticket', (fresh) => {
  const versions = async (c: Awaited<ReturnType<typeof claimed>>) => {
    const [input] = await fresh.db.query<{ v: string }>(
      `SELECT xmin::text AS v FROM token_outputs WHERE txid || '_' || vout = $1`,
      [c.input],
    );
    const [funding] = await fresh.db.query<{ v: string }>(
      'SELECT xmin::text AS v FROM funding_outputs WHERE txid = $1 AND vout = $2',
      [c.funding.txid, c.funding.vout],
    );
    return { input: input!.v, funding: funding!.v };
  };
  const fundingRow = async (c: Awaited<ReturnType<typeof claimed>>) =>
    (
      await fresh.db.query<{ state: string; reserved_by: string | null }>(
        'SELECT state, reserved_by::text AS reserved_by FROM funding_outputs WHERE txid = $1 AND vout = $2',
        [c.funding.txid, c.funding.vout],
      )
    )[0]!;
  const inputState = async (c: Awaited<ReturnType<typeof claimed>>) => {
    const [txid, vout] = [c.input.slice(0, 64), Number(c.input.slice(65))];
    const known = (await tokenOutputsByOutpoint(fresh.db, [c.input])).get(c.input)!;
    const looked = (await submissionLookups(fresh.db, [], [c.input])).known.get(c.input)!;
    const shown = (await knownOutput(fresh.db, txid, vout))!;
    assert.equal(looked.state, known.state, 'the submission lookup and the wallet read agree');
    assert.equal(shown.state, known.state, 'the console and the wallet read agree');
    assert.equal(shown.reservedBy, known.reservedBy);
    return { state: known.state, reservedBy: known.reservedBy, spentBy: known.spentBy };
  };

  it('shows a claimed output reserved, and spent once the network took it, without writing it again', async () => {
    const c = await claimed(fresh.db);
    assert.deepEqual(await inputState(c), { state: 'reserved', reservedBy: c.id, spentBy: c.txid });
    assert.equal((await knownFundingOutput(fresh.db, c.funding.txid, c.funding.vout))?.state, 'reserved');
    assert.equal((await fundingPoolLevel(fresh.db)).reserved, 1);
    const before = await versions(c);

    await applyLedgerStatuses(contextOn(fresh.db), [{ txid: c.txid, view: accepted }]);

    assert.deepEqual(await versions(c), before, 'neither the input nor the funding output was written');
    assert.deepEqual(await inputState(c), { state: 'spent', reservedBy: null, spentBy: c.txid });
    assert.equal((await knownFundingOutput(fresh.db, c.funding.txid, c.funding.vout))?.state, 'spent');
    assert.equal((await fundingPoolLevel(fresh.db)).reserved, 0);
  });

  it('gives a funding output back when its ticket fails before the network took it', async () => {
    const c = await claimed(fresh.db);
    await applyLedgerStatuses(contextOn(fresh.db), [{ txid: c.txid, view: rejected }]);
    assert.deepEqual(await fundingRow(c), { state: 'available', reserved_by: null });
    assert.deepEqual(await inputState(c), { state: 'unspent', reservedBy: null, spentBy: null });
  });

  it('keeps a funding output out of the pool when its ticket fails after an earlier batch saw it taken', async () => {
    const c = await claimed(fresh.db);
    const pool = await fundingPoolLevel(fresh.db);
    await applyLedgerStatuses(contextOn(fresh.db), [{ txid: c.txid, view: accepted }]);
    await applyLedgerStatuses(contextOn(fresh.db), [{ txid: c.txid, view: rejected }]);
    assert.deepEqual(await fundingRow(c), { state: 'reserved', reserved_by: c.id });
    assert.equal((await knownFundingOutput(fresh.db, c.funding.txid, c.funding.vout))?.state, 'spent');
    assert.deepEqual(await fundingPoolLevel(fresh.db), { ...pool, reserved: pool.reserved - 1 });
    assert.deepEqual(await inputState(c), { state: 'unspent', reservedBy: null, spentBy: null });
  });

  it('keeps a funding output out of the pool when the failing batch itself saw it taken', async () => {
    const c = await claimed(fresh.db);
    const pool = await fundingPoolLevel(fresh.db);
    await applyLedgerStatuses(contextOn(fresh.db), [
      { txid: c.txid, view: accepted },
      { txid: c.txid, view: rejected },
    ]);
    assert.deepEqual(await fundingRow(c), { state: 'spent', reserved_by: c.id });
    assert.deepEqual(await fundingPoolLevel(fresh.db), { ...pool, reserved: pool.reserved - 1 });
    assert.deepEqual(await inputState(c), { state: 'unspent', reservedBy: null, spentBy: null });
  });
});
