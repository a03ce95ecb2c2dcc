// A ticket is settled (never looked at again) only in the block its record names when the
// settling statement holds it. A sweep settling a final block, or the ticket sweep keeping a
// ticket in the block it just saw, can wait for a ticket that a verdict batch holds while the
// batch moves its record to another block (a reorg, a stale look). PostgreSQL then checks the
// ticket's row again but not the record it read before the wait: a settle in one statement
// would settle the ticket in the block it left. On PostgreSQL only: PGlite runs one statement at
// a time, so nothing waits.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Db } from '../../src/store/db/db.js';
import { keepWatchingMined } from '../../src/store/tickets/ticket-tracking.js';
import { settleTicketsIn } from '../../src/store/tickets/watched-blocks.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { backendPid, holdOpen, runWhileHeld } from '../support/held-transaction.js';
import { seedTicket, seedTransaction } from '../support/seed-store.js';

const BACKSTOP = new Date('2030-01-01T00:00:00Z');

describeOnEachDb('settling a ticket whose record moves meanwhile', { only: 'postgres' }, (fresh) => {
  /** A MINED ticket recorded in `hash`, watched (due at BACKSTOP). */
  async function minedIn(hash: string): Promise<{ id: string; txid: string }> {
    const { txid } = await seedTransaction(fresh.db, { block: { hash, height: 7, idx: 0, time: 1 } });
    const id = await seedTicket(fresh.db, { txid, status: 'MINED' });
    await fresh.db.query('UPDATE tickets SET next_check_at = $2 WHERE id = $1', [id, BACKSTOP]);
    return { id, txid };
  }

  /**
   * Runs `settle` while a verdict-like transaction holds the ticket and moves its record to
   * another block, committing once `settle` waits for it; answers the ticket's next look.
   */
  async function settleDuringMove(
    ticket: { id: string; txid: string },
    settle: (db: Db) => Promise<void>,
  ): Promise<Date | null> {
    const move = holdOpen(fresh.db, async (tx) => {
      // As a verdict batch does: the ticket first, then its record.
      await tx.query('UPDATE tickets SET next_check_at = $2 WHERE id = $1', [ticket.id, BACKSTOP]);
      await tx.query("UPDATE transactions SET blk_hash = 'other block' WHERE txid = $1", [ticket.txid]);
      return backendPid(tx);
    });
    const settling = runWhileHeld(
      fresh.db,
      move,
      () => settle(fresh.db),
      'the settle to wait for the moving ticket',
    );
    await settling;
    const [row] = await fresh.db.query<{ due: Date | null }>(
      'SELECT next_check_at AS due FROM tickets WHERE id = $1',
      [ticket.id],
    );
    return row!.due;
  }

  it('a final block is not settled for a ticket moved out of it while the sweep waited', async () => {
    const moving = await minedIn('final block');
    const staying = await minedIn('final block');
    const due = await settleDuringMove(moving, (db) => settleTicketsIn(db, ['final block']));
    assert.deepEqual(due, BACKSTOP, 'the moved ticket is still watched');
    const [other] = await fresh.db.query<{ due: Date | null }>(
      'SELECT next_check_at AS due FROM tickets WHERE id = $1',
      [staying.id],
    );
    assert.equal(other!.due, null, 'the ticket that stayed in the final block is settled');
  });

  it('the ticket sweep does not settle a ticket in the block it saw once the record moved', async () => {
    const moving = await minedIn('seen block');
    const due = await settleDuringMove(moving, (db) =>
      keepWatchingMined(db, [{ id: moving.id, blockHash: 'seen block', watch: false }], BACKSTOP),
    );
    assert.deepEqual(due, BACKSTOP, 'the moved ticket is still watched');
  });
});
