// Change-feed scores: strictly increasing, and a poller reading `score > last` never sees
// a score below one it already saw and never misses a committed change, even with
// several concurrent writers (docs/adr/0001-change-feed-score.md).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import type { Queryable } from '../../src/store/db/db.js';
import { insertScoredFeedRecords } from '../../src/store/feed/feed-records.js';
import { writeScoredRecords } from '../../src/store/feed/feed-writes.js';
import { lockScores, nextScores, SCORE_LOCK_KEY } from '../../src/store/feed/score.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';

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

  test('hold the score lock from the draw to the end of the transaction', async () => {
    const heldByMe = (q: Queryable) =>
      q.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted
            AND pid = pg_backend_pid() AND ((classid::bigint << 32) | objid::bigint) = $1`,
        [SCORE_LOCK_KEY],
      );
    await fresh.db.transaction(async (tx) => {
      assert.deepEqual(await heldByMe(tx), [{ n: 0 }]);
      await nextScores(tx, 3);
      assert.deepEqual(await heldByMe(tx), [{ n: 1 }]);
    });
    assert.deepEqual(await heldByMe(fresh.db), [{ n: 0 }]);
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

  test('a poller never sees a lower score after a higher one, and misses nothing', async () => {
    const writers = 4;
    const perWriter = 20;
    const committed = new Set<string>();
    const seen: bigint[] = [];
    let last = 0n;
    let writing = true;

    async function poll(): Promise<void> {
      const rows = await fresh.db.query<{ txid: string; score: string }>(
        'SELECT txid, score FROM transactions WHERE score > $1 ORDER BY score LIMIT 1000',
        [last],
      );
      for (const row of rows) {
        const score = BigInt(row.score);
        assert.ok(score > last, `score ${score} came after ${last}`);
        seen.push(score);
        last = score;
      }
    }

    async function writer(): Promise<void> {
      for (let i = 0; i < perWriter; i++) {
        const txid = newTxid();
        await fresh.db.transaction(async (tx) => {
          const [score] = await nextScores(tx, 1);
          assert.ok(score !== undefined);
          await insertRecord(tx, txid, score);
          // Hold the transaction open a little after the draw: the window in which a
          // plain sequence would let a later draw commit first.
          await sleep(i % 3);
        });
        committed.add(txid);
      }
    }

    const startScore = BigInt(
      (await fresh.db.query<{ s: string }>('SELECT coalesce(max(score), 0) AS s FROM transactions'))[0]?.s ??
        '0',
    );
    last = startScore;
    const poller = (async () => {
      let polls = 0;
      while (writing && polls < 10_000) {
        await poll();
        polls += 1;
        await sleep(0);
      }
    })();
    await Promise.all(Array.from({ length: writers }, () => writer()));
    writing = false;
    await poller;
    await poll(); // everything is committed now: one last read catches the tail

    const all = await fresh.db.query<{ score: string }>(
      'SELECT score FROM transactions WHERE score > $1 ORDER BY score',
      [startScore],
    );
    assert.equal(all.length, writers * perWriter);
    assert.equal(committed.size, writers * perWriter);
    assert.deepStrictEqual(
      seen,
      all.map((r) => BigInt(r.score)),
      'the poller saw every committed score exactly once, in order',
    );
  });
});

// insertScoredFeedRecords (submissions) and writeScoredRecords (ledger verdicts) take the score
// lock inside the statement that draws: a writer that holds the lock without having drawn yet
// must make them wait before they draw, or they would commit a lower score after the holder's
// higher one.
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
    test(`${name} waits for the score lock before drawing, and draws in order`, async () => {
      const { write, txids } = await prepare();
      const holder = newTxid();
      let release!: () => void;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let held!: () => void;
      const locked = new Promise<void>((resolve) => {
        held = resolve;
      });
      let holderScore = 0n;
      const holding = fresh.db.transaction(async (tx) => {
        await lockScores(tx); // held, nothing drawn yet
        held();
        await released;
        [holderScore] = (await nextScores(tx, 1)) as [bigint];
        await insertRecord(tx, holder, holderScore);
      });
      await locked;
      let waiterDone = false;
      const waiting = fresh.db
        .transaction((other) => write(other))
        .finally(() => {
          waiterDone = true;
        });
      await sleep(300);
      const waitedWhileHeld = !waiterDone;
      release(); // whatever the outcome, so that both transactions end
      await holding;
      const scores = await waiting;
      assert.ok(waitedWhileHeld, 'the second writer waits for the lock');
      assert.equal(scores.length, 2);
      assert.ok(scores[0]! > holderScore, `${scores[0]} drawn after ${holderScore}`);
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
});
