// A rejection of a transaction that a MINED ticket spends from, on each database: the MINED
// spender is in a block, so on one chain its parent is too, and the rejection is stale (an ARC
// callback sent again after a restart) or comes before a look has seen the block leave the chain.
// Nothing fails: the parent is looked at again at the next poll, and a MINED ticket fails only
// when a look at it as MINED is answered rejected (docs/contract.md). Before, the cascade failed
// the MINED child: its record failed, its outputs left the index and its inputs were released.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Db } from '../../src/store/db/db.js';
import type { ServiceContext } from '../../src/usecases/context.js';
import { applyLedgerStatuses } from '../../src/usecases/track/apply-ledger-status.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { randomTxid, seedTicket, seedTransaction } from '../support/seed-store.js';
import { trackerContext } from '../support/tracker-context.js';

const NOW = new Date('2026-11-23T12:00:00.000Z');
const blockHash = (n: number) => n.toString(16).padStart(64, '0');

const contextOn = (db: Db): ServiceContext => trackerContext(db, NOW);

describeOnEachDb('a rejection of a transaction a MINED ticket spends from', (fresh) => {
  it('a MINED spender is not failed by a rejection nobody asked about it as MINED', async () => {
    const db = fresh.db;
    const genesis = await seedTransaction(db, {
      outputs: [{ owner: 'alice', amount: 100n }],
      block: { height: 1, idx: 1, hash: blockHash(1), time: 1 },
    });
    const parentTxid = randomTxid();
    await seedTicket(db, {
      txid: parentTxid,
      status: 'SUCCESS',
      createdAt: new Date(NOW.getTime() - 60_000),
    });
    const parent = await seedTransaction(db, {
      txid: parentTxid,
      spends: [genesis.outpoints[0]!],
      outputs: [{ owner: 'bob', amount: 100n }],
    });
    const childTxid = randomTxid();
    const childId = await seedTicket(db, {
      txid: childTxid,
      status: 'MINED',
      createdAt: new Date(NOW.getTime() - 30_000),
    });
    await db.query('UPDATE tickets SET first_mined_at = $2 WHERE id = $1', [childId, NOW]);
    await seedTransaction(db, {
      txid: childTxid,
      spends: [parent.outpoints[0]!],
      outputs: [{ owner: 'carol', amount: 100n }],
      block: { height: 7, idx: 2, hash: blockHash(7), time: 7 },
    });

    // A push (an ARC callback sent again after a restart): no seenAs.
    await applyLedgerStatuses(contextOn(db), [
      { txid: parentTxid, view: { status: { kind: 'rejected', reason: 'stale callback' } } },
    ]);

    const [child] = await db.query<{ status: string }>('SELECT status FROM tickets WHERE id = $1', [childId]);
    const [record] = await db.query<{ state: string }>('SELECT state FROM transactions WHERE txid = $1', [
      childTxid,
    ]);
    const carol = await db.query('SELECT 1 FROM token_outputs WHERE txid = $1', [childTxid]);
    assert.equal(child!.status, 'MINED', 'a MINED ticket fails only when asked about as MINED');
    assert.equal(record!.state, 'mined');
    assert.equal(carol.length, 1, "the mined child's output stays in the index");
    const [parentNow] = await db.query<{ status: string; next_check_at: Date }>(
      'SELECT status, next_check_at FROM tickets WHERE txid = $1',
      [parentTxid],
    );
    assert.equal(parentNow!.status, 'SUCCESS', 'the parent is not failed either');
    assert.ok(
      parentNow!.next_check_at.getTime() <= NOW.getTime() + 30_000,
      'looked at again at the next poll',
    );
  });
});
