// The live stream's pages of the change feed for a set of addresses (feedAfter), on each
// database: a page ends where the first address's own range was cut, so a record of that
// address brought in by another address's range does not move the page's end past records of
// it that were not read; the next page, after the end, reads them. A page's size is its limit,
// whatever the number of addresses.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { feedAfter } from '../../src/store/feed/feed-after.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { seedTransaction } from '../support/seed-store.js';
import { party } from '../support/token-world.js';

describeOnEachDb('feed pages for addresses', (fresh) => {
  it('pages in turn give every record of each address, none skipped', async () => {
    const a = party('feed after a').address;
    const b = party('feed after b').address;
    const start = await seedTransaction(fresh.db, {
      outputs: [{ owner: party('feed after x').address, amount: 1n }],
    });
    const mints = [];
    for (let i = 0; i < 4; i++)
      mints.push(await seedTransaction(fresh.db, { outputs: [{ owner: a, amount: 10n }] }));
    // A sends to B: one record of A's beyond A's first two, and B's first.
    const send = await seedTransaction(fresh.db, {
      spends: [mints[0]!.outpoints[0]!],
      outputs: [{ owner: b, amount: 10n }],
    });
    const wanted = [...mints.map((m) => m.txid), send.txid];

    const seen: string[] = [];
    let after = start.score;
    for (let page = 0; page < 10; page++) {
      const got = await feedAfter(fresh.db, { after, addresses: [a, b], limit: 2 });
      seen.push(...got.records.map((r) => r.txid));
      if (got.records.length > 0) after = got.records.at(-1)!.score;
      if (got.end) break;
    }
    assert.deepEqual(seen, wanted);
  });

  it('a page holds at most its limit, however many addresses are asked, and skips none', async () => {
    const addresses = Array.from({ length: 40 }, (_, i) => party(`feed after many ${i}`).address);
    const start = await seedTransaction(fresh.db, {
      outputs: [{ owner: party('feed after y').address, amount: 1n }],
    });
    const wanted: string[] = [];
    for (let round = 0; round < 3; round++)
      for (const owner of addresses)
        wanted.push((await seedTransaction(fresh.db, { outputs: [{ owner, amount: 5n }] })).txid);

    const seen: string[] = [];
    let after = start.score;
    for (let page = 0; page < 100; page++) {
      const got = await feedAfter(fresh.db, { after, addresses, limit: 5 });
      assert.ok(got.records.length <= 5, `a page of ${got.records.length} records`);
      seen.push(...got.records.map((r) => r.txid));
      if (got.records.length > 0) after = got.records.at(-1)!.score;
      if (got.end) break;
    }
    assert.deepEqual(seen, wanted);
  });
});
