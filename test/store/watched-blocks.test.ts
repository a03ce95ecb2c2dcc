// A watched block's tickets, written a chunk at a time (store/tickets/watched-blocks.ts): a final block's
// MINED tickets are settled (never looked at again), a block that left the chain has its MINED
// tickets rechecked; every one of them, however many chunks it takes, and no ticket of another
// block or in another status. On both adapters.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Db, Queryable, Row, SqlValue } from '../../src/store/db/db.js';
import { recheckTicketsIn, settleTicketsIn } from '../../src/store/tickets/watched-blocks.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { seedTicket, seedTransaction } from '../support/seed-store.js';

/** `db` whose statements, in its transactions too, are counted. */
function counting(db: Db): { q: Db; statements: () => number } {
  let n = 0;
  const counted = (q: Queryable): Queryable => ({
    query<R extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<R[]> {
      n++;
      return q.query<R>(sql, params);
    },
  });
  return {
    q: { ...db, ...counted(db), transaction: (fn) => db.transaction((tx) => fn(counted(tx))) },
    statements: () => n,
  };
}

describeOnEachDb('watched blocks', (fresh) => {
  const later = new Date('2030-01-01T00:00:00Z');

  /** `count` tickets MINED in the block `hash` (one transaction each), due at `later`. */
  async function minedIn(hash: string, count: number, status: 'MINED' | 'SUCCESS' = 'MINED') {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const { txid } = await seedTransaction(fresh.db, { block: { hash, height: 7, idx: i, time: 1 } });
      ids.push(await seedTicket(fresh.db, { txid, status }));
    }
    await fresh.db.query('UPDATE tickets SET next_check_at = $2 WHERE id = ANY($1::uuid[])', [ids, later]);
    return ids;
  }

  const dueOf = async (ids: readonly string[]) =>
    (
      await fresh.db.query<{ due: Date | null }>(
        'SELECT next_check_at AS due FROM tickets WHERE id = ANY($1::uuid[]) ORDER BY id',
        [ids],
      )
    ).map((r) => r.due?.toISOString() ?? null);

  it('settles every MINED ticket of a final block, a chunk a statement, and no other', async () => {
    const final = await minedIn('final block', 5);
    const other = await minedIn('other block', 2);
    const waiting = await minedIn('final block', 1, 'SUCCESS');
    const counted = counting(fresh.db);
    await settleTicketsIn(counted.q, ['final block'], 2);
    assert.deepEqual(await dueOf(final), Array(5).fill(null));
    // Chunks of 2, 2 and 1 (each locked, then settled): the last, short, ends it.
    assert.equal(counted.statements(), 6);
    assert.deepEqual(await dueOf([...other, ...waiting]), Array(3).fill(later.toISOString()));
    // Settled already: one statement finds nothing to lock.
    await settleTicketsIn(counted.q, ['final block'], 2);
    assert.equal(counted.statements(), 7);
  });

  it('rechecks every MINED ticket of a block that left the chain, a chunk a statement', async () => {
    const left = await minedIn('left block', 4);
    const other = await minedIn('standing block', 1);
    const now = new Date('2029-06-01T00:00:00Z');
    const counted = counting(fresh.db);
    await recheckTicketsIn(counted.q, ['left block'], now, 2);
    assert.deepEqual(await dueOf(left), Array(4).fill(now.toISOString()));
    // Chunks of 2 and 2, then one that finds none left.
    assert.equal(counted.statements(), 3);
    assert.deepEqual(await dueOf(other), [later.toISOString()]);
  });
});
