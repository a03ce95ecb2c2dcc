// The feed's bound (store/feed/feed-bound.ts, docs/adr/0020-scores-drawn-under-shared-markers.md):
// writers that draw under shared markers (SCORE_MARK_JOIN) do not wait for each other, so a
// higher score may commit before a lower one; a reader that stops at the bound never answers the
// higher one first, and a poller following its cursor sees every committed score once, in order.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import type { Db, Queryable } from '../../src/store/db/db.js';
import { feedAfter } from '../../src/store/feed/feed-after.js';
import { feedBound, feedEdge } from '../../src/store/feed/feed-bound.js';
import { syncForAddresses, syncFrom } from '../../src/store/feed/feed-queries.js';
import { markScores, nextScores, SCORE_DRAW, SCORE_MARK_JOIN } from '../../src/store/feed/score.js';
import { feedBatchEnd } from '../../src/store/subscriptions/subscription-feed.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { holdOpen } from '../support/held-transaction.js';

let txCounter = 0;
function newTxid(): string {
  txCounter += 1;
  return `b0${txCounter.toString(16).padStart(62, '0')}`;
}

const ADDRESS = '1BoundTestAddress';

/** Draws one score under a marker (as the write path's statements do) and writes a record with it. */
async function writeMarked(tx: Queryable, txid: string): Promise<bigint> {
  const rows = await tx.query<{ score: string }>(
    `SELECT ${SCORE_DRAW}::text AS score FROM (SELECT 1) AS one ${SCORE_MARK_JOIN}`,
  );
  const score = BigInt(rows[0]!.score);
  await tx.query(
    `INSERT INTO transactions (txid, raw_tx, senders, receivers, outs, state, score)
     VALUES ($1, $2, $3, $4, $5, 'unconfirmed', $6)`,
    [txid, new Uint8Array([1]), [ADDRESS], ['1Receiver'], [0], score],
  );
  await tx.query('INSERT INTO transaction_addresses (address, txid, score) VALUES ($1, $2, $3)', [
    ADDRESS,
    txid,
    score,
  ]);
  return score;
}

/** A writer that drew a score and stays open until the test commits or rolls it back. */
function openWriter(db: Db) {
  const txid = newTxid();
  return { txid, ...holdOpen(db, (tx) => writeMarked(tx, txid)) };
}

describeOnEachDb('the feed bound', (fresh) => {
  test('is the last score drawn while no writer is open', async () => {
    const first = await fresh.db.transaction((tx) => writeMarked(tx, newTxid()));
    const second = await fresh.db.transaction((tx) => writeMarked(tx, newTxid()));
    assert.ok(second > first);
    assert.equal(await feedBound(fresh.db), second);
    // A cached sequence would hand out scores below its last value after it was read.
    const cache = await fresh.db.query<{ n: string }>(
      "SELECT seqcache::text AS n FROM pg_sequence WHERE seqrelid = 'change_score_seq'::regclass",
    );
    assert.deepEqual(cache, [{ n: '1' }]);
  });

  test('a poller following its cursor sees every committed score once, in order', async () => {
    const writers = 6;
    const perWriter = 15;
    const start = await feedBound(fresh.db);
    let cursor = start;
    const seen: bigint[] = [];
    let writing = true;
    const committed: bigint[] = [];

    async function poll(): Promise<void> {
      const page = await feedAfter(fresh.db, { after: cursor, addresses: null, limit: 1000 });
      for (const r of page.records) {
        assert.ok(r.score > cursor, `score ${r.score} came after ${cursor}`);
        seen.push(r.score);
        cursor = r.score;
      }
    }
    async function writer(seed: number): Promise<void> {
      for (let i = 0; i < perWriter; i++) {
        let score = 0n;
        await fresh.db.transaction(async (tx) => {
          score = await writeMarked(tx, newTxid());
          // Open a while after the draw (pseudo-random, 0-4 ms): the window in which a later
          // draw commits first.
          await sleep((seed * 7 + i * 13) % 5);
        });
        committed.push(score);
      }
    }
    const poller = (async () => {
      for (let polls = 0; writing && polls < 20_000; polls++) {
        await poll();
        await sleep(0);
      }
    })();
    await Promise.all(Array.from({ length: writers }, (_, w) => writer(w)));
    writing = false;
    await poller;
    await poll();
    assert.equal(committed.length, writers * perWriter);
    assert.deepEqual(
      seen,
      committed.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
      'every committed score once, in increasing order',
    );
  });
});

describeOnEachDb('a reader with the feed bound, writers open at once', { only: 'postgres' }, (fresh) => {
  for (const outcome of ['commits', 'rolls back'] as const) {
    test(`does not answer a later writer's higher score before an earlier one's lower score (it ${outcome})`, async () => {
      const cursor = await feedBound(fresh.db);
      const a = openWriter(fresh.db);
      const low = await a.ready; // A drew and is still open
      let high = 0n;
      const highTxid = newTxid();
      await fresh.db.transaction(async (tx) => {
        high = await writeMarked(tx, highTxid); // B drew after A and commits first
      });
      assert.ok(high > low);

      // Without the bound, B is answered while A is open: a poller would move past A's score.
      const unbounded = await fresh.db.query<{ txid: string }>(
        'SELECT txid FROM transactions WHERE score > $1 ORDER BY score',
        [cursor],
      );
      assert.deepEqual(
        unbounded.map((r) => r.txid),
        [highTxid],
        'a plain read shows the hazard the bound is for',
      );

      // Every reader stops below A's marker while A is open.
      const bound = await feedBound(fresh.db);
      assert.ok(bound < low, `bound ${bound} below the open writer's ${low}`);
      assert.deepEqual(await syncFrom(fresh.db, { from: cursor + 1n, limit: 100 }), []);
      const page = await feedAfter(fresh.db, { after: cursor, addresses: null, limit: 100 });
      assert.deepEqual(page.records, []);
      assert.equal(page.end, true);
      assert.deepEqual(await feedAfter(fresh.db, { after: cursor, addresses: [ADDRESS], limit: 100 }), {
        records: [],
        end: true,
      });
      assert.deepEqual(
        await syncForAddresses(fresh.db, { addresses: [ADDRESS], from: cursor, limit: 0, order: 'asc' }),
        [],
      );
      const newest = await syncForAddresses(fresh.db, {
        addresses: [ADDRESS],
        from: 0n,
        limit: 1,
        order: 'desc',
      });
      assert.ok(
        newest.every((r) => r.score <= bound),
        'a read of the newest stops at the bound too',
      );
      assert.deepEqual(await feedBatchEnd(fresh.db, cursor, 100, bound), { last: null, count: 0 });

      if (outcome === 'commits') a.commit();
      else a.rollback();
      await a.ended;
      const after = await feedAfter(fresh.db, { after: cursor, addresses: null, limit: 100 });
      const expected = outcome === 'commits' ? [a.txid, highTxid] : [highTxid];
      assert.deepEqual(
        after.records.map((r) => r.txid),
        expected,
        'then A (when it committed), then B',
      );
      assert.deepEqual(
        (
          await syncForAddresses(fresh.db, { addresses: [ADDRESS], from: cursor, limit: 0, order: 'asc' })
        ).map((r) => r.txid),
        expected,
      );
    });
  }

  test('a writer that took its marker ends the bound below its scores, not at it', async () => {
    const a = openWriter(fresh.db);
    const low = await a.ready;
    const bound = await feedBound(fresh.db);
    assert.equal(bound, low - 1n, 'the marker is the last value before its draw');
    assert.deepEqual(
      await feedEdge(fresh.db),
      { bound: low - 1n, last: low },
      'an open writer drew up to last',
    );
    a.commit();
    await a.ended;
    assert.equal(await feedBound(fresh.db), low);
    assert.deepEqual(await feedEdge(fresh.db), { bound: low, last: low }, 'none open');
  });
});

describeOnEachDb('a writer that draws with nextScores', { only: 'postgres' }, (fresh) => {
  // The deploy draws with nextScores, and a test's writer may take its marker before it draws:
  // either way the bound stays below the drawn score until the writer ends, so a reader that
  // starts a cursor at the bound (the feed hub's tip) never starts past a score still to commit.
  for (const how of ['nextScores', 'markScores, then nextScores'] as const) {
    test(`keeps the bound below the score it drew until it commits (${how})`, async () => {
      const writer = holdOpen(fresh.db, async (tx) => {
        if (how !== 'nextScores') await markScores(tx);
        return (await nextScores(tx, 2))[1]!;
      });
      const open = await writer.ready;
      const edge = await feedEdge(fresh.db);
      assert.equal(edge.last, open, 'the sequence has handed the scores out');
      assert.ok(edge.bound < open - 1n, `bound ${edge.bound} below the open writer's ${open - 1n}`);
      writer.commit();
      await writer.ended;
      assert.equal(await feedBound(fresh.db), open);
    });
  }
});
