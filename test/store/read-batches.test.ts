// Batched reads answer each request exactly what its own read answers, in one statement for the
// requests of one turn of the event loop; on both adapters.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { uuidv7 } from '../../src/crypto/random-id.js';
import type { Db, Queryable } from '../../src/store/db/db.js';
import { ticketById } from '../../src/store/tickets/ticket-queries.js';
import {
  batchedBalanceReader,
  batchedTicketReader,
  batchedUnspentReader,
} from '../../src/store/wallets/read-batches.js';
import { type UnspentQuery, unspentOutputs } from '../../src/store/wallets/wallet-queries.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { seedTicket, seedTransaction } from '../support/seed-store.js';

/** `db` with its statements counted (those whose text includes `marker`), its hot reads' too. */
function counted(db: Db, marker: string): { db: Db; statements: () => number } {
  let statements = 0;
  const counting = (q: Queryable): Queryable => ({
    query: (sql, params) => {
      if (sql.includes(marker)) statements++;
      return q.query(sql, params);
    },
  });
  return {
    db: { ...db, ...counting(db), ...(db.reads !== undefined && { reads: counting(db.reads) }) },
    statements: () => statements,
  };
}

describeOnEachDb('read batches', (fresh) => {
  const owners = ['A', 'B', 'C'];
  before(async () => {
    // Each owner gets outputs from several transactions, so pages differ by score and vout.
    for (let i = 0; i < 6; i++) {
      await seedTransaction(fresh.db, {
        senders: [],
        outputs: owners.flatMap((owner, k) => [
          { owner, amount: BigInt(100 * i + k + 1) },
          { owner, amount: BigInt(100 * i + k + 50) },
        ]),
      });
    }
  });

  test('tickets read in one turn take one statement and each gets its own', async () => {
    const ids = [
      await seedTicket(fresh.db, { status: 'BROADCASTING' }),
      await seedTicket(fresh.db, { status: 'FAILED', errors: 'double spend' }),
    ];
    const missing = uuidv7();
    const { db, statements } = counted(fresh.db, 'FROM tickets');
    const read = batchedTicketReader(db);
    const got = await Promise.all([read(ids[0]!), read(missing), read(ids[1]!), read(ids[0]!)]);
    assert.equal(statements(), 1);
    assert.deepStrictEqual(got, [
      await ticketById(fresh.db, ids[0]!),
      null,
      await ticketById(fresh.db, ids[1]!),
      await ticketById(fresh.db, ids[0]!),
    ]);
    assert.equal(got[1], null);
    assert.equal(got[2]?.errors, 'double spend');
  });

  test('pages of unspent outputs read together equal each read alone, one statement per order', async () => {
    const queries: UnspentQuery[] = [
      { addresses: ['A'], page: 1, size: 4, order: 'asc' },
      { addresses: ['A', 'B'], page: 2, size: 5, order: 'asc' },
      { addresses: ['C', 'A', 'C'], page: 1, size: 3, order: 'desc' },
      { addresses: ['B'], page: 9, size: 10, order: 'asc' }, // past the end: empty
      { addresses: [], page: 1, size: 10, order: 'desc' },
      { addresses: ['nobody', 'B'], page: 3, size: 2, order: 'desc' },
    ];
    const { db, statements } = counted(fresh.db, 'token_outputs');
    const read = batchedUnspentReader(db);
    const together = await Promise.all(queries.map((q) => read(q)));
    assert.equal(statements(), 2);
    const alone = [];
    for (const q of queries) alone.push(await unspentOutputs(fresh.db, q));
    assert.deepStrictEqual(together, alone);
    assert.equal(together[0]!.length, 4);
    assert.ok(together[1]!.every((o) => o.owner === 'A' || o.owner === 'B'));
    assert.equal(together[3]!.length, 0);
    assert.equal(together[5]!.length, 2);
  });

  test('balances read in one turn ask the reader once, for every address, and answer each its own', async () => {
    const asked: (readonly string[])[] = [];
    const read = batchedBalanceReader(async (addresses) => {
      asked.push(addresses);
      return new Map(addresses.map((a) => [a, BigInt(a.length)]));
    });
    const got = await Promise.all([read(['A', 'BB']), read(['BB', 'CCC']), read([])]);
    assert.deepStrictEqual(asked, [['A', 'BB', 'CCC']]);
    assert.deepStrictEqual(got, [
      new Map([
        ['A', 1n],
        ['BB', 2n],
      ]),
      new Map([
        ['BB', 2n],
        ['CCC', 3n],
      ]),
      new Map(),
    ]);
  });

  test('a read asked after a write sees it', async () => {
    const read = batchedUnspentReader(fresh.db);
    const query: UnspentQuery = { addresses: ['D'], page: 1, size: 10, order: 'asc' };
    assert.deepStrictEqual(await read(query), []);
    await seedTransaction(fresh.db, { senders: [], outputs: [{ owner: 'D', amount: 7n }] });
    const [output] = await read(query);
    assert.equal(output?.amount, 7n);
  });
});
