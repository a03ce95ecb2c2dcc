// A sweep's look at a MINED ticket (its record in block B1) answers 'mempool' while the ledger is
// between a reorg and the new block; before that answer is applied, the pushes of the reorg and
// of the new block B2 are, on each database. The look's answer is about B1, older than the
// record now in B2: it is ignored, and the ticket stays MINED in B2. Before, it took the ticket
// back to SUCCESS (record unmined, callbacks SUCCESS and, later, MINED again). A look whose block
// is still the record's takes the ticket back as a reorg does.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { TxStatus } from '../../src/ledger/port.js';
import type { Db } from '../../src/store/db/db.js';
import type { ServiceContext } from '../../src/usecases/context.js';
import { applyLedgerStatuses, type LedgerUpdate } from '../../src/usecases/track/apply-ledger-status.js';
import { trackDueTickets } from '../../src/usecases/track/track-tickets.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { randomTxid, seedTicket, seedTransaction } from '../support/seed-store.js';
import { trackerContext } from '../support/tracker-context.js';

const NOW = new Date('2026-11-23T12:00:00.000Z');
const blockHash = (n: number) => n.toString(16).padStart(64, '0');
const mined = (hash: string, height: number): TxStatus => ({
  kind: 'mined',
  blockHash: hash,
  height,
  index: 1,
  blockTime: 1_700_000_000 + height,
  merklePath: '00',
});

const contextOn = (db: Db): ServiceContext => trackerContext(db, NOW);

/** A MINED ticket whose record is in block B1 (height 10). */
async function minedInB1(db: Db): Promise<{ txid: string; id: string }> {
  const txid = randomTxid();
  const id = await seedTicket(db, { txid, status: 'MINED', createdAt: new Date(NOW.getTime() - 60_000) });
  await db.query('UPDATE tickets SET first_mined_at = $2 WHERE id = $1', [id, NOW]);
  await seedTransaction(db, {
    txid,
    outputs: [{ owner: 'dave', amount: 5n }],
    block: { height: 10, idx: 1, hash: blockHash(10), time: 10 },
  });
  return { txid, id };
}

async function standing(db: Db, id: string, txid: string) {
  const [ticket] = await db.query<{ status: string }>('SELECT status FROM tickets WHERE id = $1', [id]);
  const [record] = await db.query<{ state: string; blk_hash: string }>(
    'SELECT state, blk_hash FROM transactions WHERE txid = $1',
    [txid],
  );
  return { status: ticket!.status, state: record!.state, blkHash: record!.blk_hash };
}

describeOnEachDb('a look at a MINED ticket answered after a reorg', (fresh) => {
  it('does not take a ticket MINED in the new block back to SUCCESS', async () => {
    const db = fresh.db;
    const { txid, id } = await minedInB1(db);
    const ctx = contextOn(db);
    // The pushes: reorged out, then mined in the new block B2 at the same height.
    await applyLedgerStatuses(ctx, [{ txid, view: { status: { kind: 'mempool' } } }]);
    await applyLedgerStatuses(ctx, [{ txid, view: { status: mined(blockHash(0x10b2), 10), tipHeight: 10 } }]);
    // The sweep's answer to a look begun when the ticket was MINED in B1, asked between the two.
    const look = { status: { kind: 'mempool' as const }, seenAs: 'MINED' as const, seenBlock: blockHash(10) };
    await applyLedgerStatuses(ctx, [{ txid, view: { ...look, tipHeight: 10 } }]);
    assert.deepEqual(
      await standing(db, id, txid),
      { status: 'MINED', state: 'mined', blkHash: blockHash(0x10b2) },
      'an answer older than the block stays unapplied',
    );
  });

  it('takes a ticket whose record is still in the block the look saw back to SUCCESS', async () => {
    const db = fresh.db;
    const { txid, id } = await minedInB1(db);
    const look = { status: { kind: 'mempool' as const }, seenAs: 'MINED' as const, seenBlock: blockHash(10) };
    await applyLedgerStatuses(contextOn(db), [{ txid, view: { ...look, tipHeight: 10 } }]);
    assert.deepEqual(await standing(db, id, txid), { status: 'SUCCESS', state: 'unconfirmed', blkHash: '' });
  });

  it("a sweep's look at a MINED ticket names the block it saw", async () => {
    const db = fresh.db;
    const { txid } = await minedInB1(db);
    await db.query('UPDATE tickets SET next_check_at = $2 WHERE txid = $1', [
      txid,
      new Date(NOW.getTime() - 1_000),
    ]);
    const ledger = { status: async () => ({ kind: 'mempool' }), tip: async () => ({ height: 10, hash: '' }) };
    const seen: LedgerUpdate[] = [];
    await trackDueTickets({ ...contextOn(db), ledger } as unknown as ServiceContext, 100, async (updates) => {
      seen.push(...updates);
    });
    assert.deepEqual(
      seen.filter((u) => u.txid === txid).map((u) => [u.view.seenAs, u.view.seenBlock]),
      [['MINED', blockHash(10)]],
    );
  });
});
