// Change-feed scores: strictly increasing, each drawn under its writer's marker, taken before the
// draw and held to the transaction's end (docs/adr/0020-scores-drawn-under-shared-markers.md). A
// poller stopping at the feed's bound then misses nothing: test/store/feed-bound.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import type { Queryable } from '../../src/store/db/db.js';
import { insertScoredFeedRecords } from '../../src/store/feed/feed-records.js';
import { writeScoredRecords } from '../../src/store/feed/feed-writes.js';
import { MARK_OF_SCHEMA, nextScores, SCORE_LAST_VALUE } from '../../src/store/feed/score.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { holdOpen } from '../support/held-transaction.js';

let txCounter = 0;
function newTxid(): string {
  txCounter += 1;
  return txCounter.toString(16).padStart(64, '0');
}

/** Writes one change-feed record the way a use case would: score drawn last, then the row. */
async function insertRecord(tx: Queryable, txid: string, score: bigint): Promise<void> {
  await tx.query(
    `INSERT INTO transactions (txid, raw_tx, senders, receivers, outs, state, score)
     VALUES ($1, $2, $3, $4, $5, 'unconfirmed', $6)`,
    [txid, new Uint8Array([1]), ['sender'], ['receiver'], [0], score],
  );
}

describeOnEachDb('scores', (fresh) => {
  test('are bigints, strictly increasing across calls and within one call', async () => {
    const first = await fresh.db.transaction((tx) => nextScores(tx, 3));
    const second = await fresh.db.transaction((tx) => nextScores(tx, 1));
    const all = [...first, ...second];
    assert.equal(all.length, 4);
    for (const score of all) assert.equal(typeof score, 'bigint');
    for (let i = 1; i < all.length; i++) assert.ok(all[i]! > all[i - 1]!, `${all[i]} > ${all[i - 1]}`);
    assert.deepStrictEqual(await fresh.db.transaction((tx) => nextScores(tx, 0)), []);
  });

  test("hold the writer's marker from the draw to the end of the transaction", async () => {
    const markersOfMine = (q: Queryable) =>
      q.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted AND mode = 'ShareLock'
            AND pid = pg_backend_pid() AND ((classid::bigint << 32) | objid::bigint) >= ${MARK_OF_SCHEMA}`,
      );
    await fresh.db.transaction(async (tx) => {
      assert.deepEqual(await markersOfMine(tx), [{ n: 0 }]);
      await nextScores(tx, 3);
      assert.deepEqual(await markersOfMine(tx), [{ n: 1 }]);
    });
    assert.deepEqual(await markersOfMine(fresh.db), [{ n: 0 }]);
  });

  test('refuse a count that is not a non-negative integer', async () => {
    await assert.rejects(
      fresh.db.transaction((tx) => nextScores(tx, -1)),
      RangeError,
    );
    await assert.rejects(
      fresh.db.transaction((tx) => nextScores(tx, 1.5)),
      RangeError,
    );
  });
});

// insertScoredFeedRecords (submissions) and writeScoredRecords (ledger verdicts) take the writer's
// marker inside the statement that draws, on the sequence's last value before the draw: every
// score drawn is above it, which is what lets a reader's bound stay below open writers' scores. A
// holder of that key's exclusive lock makes the statement wait, and it has drawn nothing while it
// waits.
describeOnEachDb('scores drawn inside the statement that writes them', { only: 'postgres' }, (fresh) => {
  const record = (txid: string) => ({
    txid,
    rawTx: new Uint8Array([1]),
    senders: ['sender'],
    receivers: ['receiver'],
    outputs: [],
    state: 'unconfirmed' as const,
    now: new Date(),
  });
  const mined = (txid: string, idx: number) => ({
    txid,
    kind: 'mined' as const,
    block: { height: 7, idx, hash: 'cd'.repeat(32), time: 1_700_000_000 },
  });
  const lastValue = async (q: Queryable) =>
    BigInt((await q.query<{ s: string }>(`SELECT ${SCORE_LAST_VALUE}::text AS s`))[0]!.s);
  const writers: [string, () => Promise<{ write: (tx: Queryable) => Promise<bigint[]>; txids: string[] }>][] =
    [
      [
        'insertScoredFeedRecords',
        async () => {
          const txids = [newTxid(), newTxid()];
          return { txids, write: (tx) => insertScoredFeedRecords(tx, txids.map(record)) };
        },
      ],
      [
        'writeScoredRecords',
        async () => {
          const txids = [newTxid(), newTxid()];
          await fresh.db.transaction(async (tx) => {
            for (const txid of txids) await insertRecord(tx, txid, (await nextScores(tx, 1))[0]!);
          });
          return {
            txids,
            write: (tx) => writeScoredRecords(tx, [mined(txids[0]!, 1), mined(txids[1]!, 2)], new Date()),
          };
        },
      ],
    ];
  for (const [name, prepare] of writers) {
    test(`${name} takes its marker before it draws, and draws in order`, async () => {
      const { write, txids } = await prepare();
      let release!: () => void;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let held!: (last: bigint) => void;
      const blocking = new Promise<bigint>((resolve) => {
        held = resolve;
      });
      // The exclusive lock on the key the writer's marker will ask for: the last value's marker.
      const holder = fresh.db.transaction(async (tx) => {
        const rows = await tx.query<{ last: string }>(
          `SELECT ${SCORE_LAST_VALUE}::text AS last, pg_advisory_xact_lock(${MARK_OF_SCHEMA} + ${SCORE_LAST_VALUE})`,
        );
        held(BigInt(rows[0]!.last));
        await released;
      });
      const before = await blocking;
      let writerDone = false;
      const writing = fresh.db
        .transaction((other) => write(other))
        .finally(() => {
          writerDone = true;
        });
      await sleep(300);
      const waited = !writerDone;
      const lastWhileWaiting = await lastValue(fresh.db);
      release(); // whatever the outcome, so that both transactions end
      await holder;
      const scores = await writing;
      assert.ok(waited, 'the writer waits for its marker');
      assert.equal(lastWhileWaiting, before, 'nothing was drawn before the marker was held');
      assert.equal(scores.length, 2);
      assert.ok(scores[0]! > before, `${scores[0]} drawn above the marker's ${before}`);
      assert.ok(scores[1]! > scores[0]!, 'in the order given');
      const rows = await fresh.db.query<{ txid: string; score: string }>(
        'SELECT txid, score::text AS score FROM transactions WHERE txid = ANY($1::text[]) ORDER BY score',
        [txids],
      );
      assert.deepEqual(
        rows.map((r) => [r.txid, BigInt(r.score)]),
        txids.map((txid, i) => [txid, scores[i]]),
        'each record carries its drawn score',
      );
    });
  }

  test('writers do not wait for each other', async () => {
    const first = holdOpen(fresh.db, (tx) => insertScoredFeedRecords(tx, [record(newTxid())]));
    const [held] = await first.ready;
    // The first writer holds its marker, open; a second draws and commits meanwhile.
    const second = fresh.db.transaction((tx) => insertScoredFeedRecords(tx, [record(newTxid())]));
    const outcome = await Promise.race([second, sleep(5_000).then(() => 'waited' as const)]);
    first.commit();
    await first.ended;
    assert.notEqual(outcome, 'waited', 'the second writer committed while the first was open');
    assert.ok((await second)[0]! > held!);
  });
});
