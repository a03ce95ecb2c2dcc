// The change feed read by GET and POST /v1/sync, on both adapters: fields, score bounds,
// limits, per-address limits, de-duplication, both orders, and a comparison with a plain
// in-memory model over a random history.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import {
  rawTransaction,
  type SyncRecord,
  syncForAddresses,
  syncFrom,
} from '../../src/store/feed/feed-queries.js';
import { prng } from '../support/client-fixtures.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { randomTxid, restateTransaction, seedTransaction } from '../support/seed-store.js';

const scores = (records: readonly SyncRecord[]) => records.map((r) => r.score);
const txids = (records: readonly SyncRecord[]) => records.map((r) => r.txid);

describeOnEachDb('feed queries', (fresh) => {
  describe('a small history', () => {
    // mint -> A (genesis), A -> B + change to A, B -> C, then the first is mined.
    const rawGenesis = new Uint8Array([1, 0, 0, 0, 0xaa]);
    let genesis: { txid: string; score: bigint };
    let ab: { txid: string; score: bigint };
    let bc: { txid: string; score: bigint };
    let minedScore: bigint;
    const block = { height: 812_345, idx: 7, hash: 'ab'.repeat(32), time: 1_700_000_123 };

    before(async () => {
      const g = await seedTransaction(fresh.db, {
        rawTx: rawGenesis,
        senders: [],
        outputs: [{ owner: 'A', amount: 1_000n, op: 'deploy+mint' }],
      });
      genesis = g;
      const t1 = await seedTransaction(fresh.db, {
        spends: [g.outpoints[0]!],
        outputs: [
          { owner: 'B', amount: 400n },
          { owner: 'A', amount: 600n },
        ],
      });
      ab = t1;
      bc = await seedTransaction(fresh.db, {
        spends: [t1.outpoints[0]!],
        outputs: [{ owner: 'C', amount: 400n }],
      });
      minedScore = await restateTransaction(fresh.db, g.txid, 'mined', block);
    });

    test('syncFrom returns every field, scores as bigints, in score order', async () => {
      const all = await syncFrom(fresh.db, { from: 0n, limit: 100 });
      assert.deepStrictEqual(txids(all), [ab.txid, bc.txid, genesis.txid]);
      const [first, second, mined] = all;
      assert.deepStrictEqual(first, {
        txid: ab.txid,
        rawTx: first!.rawTx,
        senders: ['A'],
        receivers: ['B', 'A'],
        outs: [0, 1],
        height: 0,
        idx: 0,
        blkHash: '',
        blkTime: 0,
        score: ab.score,
        state: 'unconfirmed',
      });
      assert.ok(first!.rawTx instanceof Uint8Array);
      assert.deepStrictEqual(second!.senders, ['B']);
      assert.deepStrictEqual(mined, {
        txid: genesis.txid,
        rawTx: rawGenesis,
        senders: [],
        receivers: ['A'],
        outs: [0],
        height: block.height,
        idx: block.idx,
        blkHash: block.hash,
        blkTime: block.time,
        score: minedScore,
        state: 'mined',
      });
      assert.ok(minedScore > bc.score, 'a state change gives a new, higher score');
    });

    test('syncFrom: from is inclusive, limit cuts, a score past the end gives nothing', async () => {
      assert.deepStrictEqual(txids(await syncFrom(fresh.db, { from: bc.score, limit: 100 })), [
        bc.txid,
        genesis.txid,
      ]);
      assert.deepStrictEqual(txids(await syncFrom(fresh.db, { from: bc.score + 1n, limit: 100 })), [
        genesis.txid,
      ]);
      assert.deepStrictEqual(txids(await syncFrom(fresh.db, { from: 0n, limit: 1 })), [ab.txid]);
      assert.deepStrictEqual(await syncFrom(fresh.db, { from: minedScore + 1n, limit: 100 }), []);
      assert.deepStrictEqual(await syncFrom(fresh.db, { from: 0n, limit: 0 }), []);
    });

    test('syncFrom refuses a negative limit or score', async () => {
      await assert.rejects(syncFrom(fresh.db, { from: 0n, limit: -1 }), RangeError);
      await assert.rejects(syncFrom(fresh.db, { from: -1n, limit: 1 }), RangeError);
    });

    test('syncForAddresses: a record concerning two asked addresses comes once', async () => {
      const both = await syncForAddresses(fresh.db, {
        addresses: ['A', 'B'],
        from: 0n,
        limit: 0,
        order: 'asc',
      });
      assert.deepStrictEqual(txids(both), [ab.txid, bc.txid, genesis.txid]);
      const onlyC = await syncForAddresses(fresh.db, { addresses: ['C'], from: 0n, limit: 0, order: 'asc' });
      assert.deepStrictEqual(txids(onlyC), [bc.txid]);
      assert.deepStrictEqual(
        await syncForAddresses(fresh.db, { addresses: ['nobody'], from: 0n, limit: 0, order: 'asc' }),
        [],
      );
      assert.deepStrictEqual(
        await syncForAddresses(fresh.db, { addresses: [], from: 0n, limit: 0, order: 'asc' }),
        [],
      );
    });

    test('syncForAddresses: desc is newest first; from is excluded in both orders (desc 0: none)', async () => {
      const newest = await syncForAddresses(fresh.db, {
        addresses: ['A', 'C'],
        from: 0n,
        limit: 0,
        order: 'desc',
      });
      assert.deepStrictEqual(txids(newest), [genesis.txid, bc.txid, ab.txid]);
      const upTo = await syncForAddresses(fresh.db, {
        addresses: ['A', 'C'],
        from: bc.score,
        limit: 0,
        order: 'desc',
      });
      assert.deepStrictEqual(txids(upTo), [ab.txid]);
      const fromUp = await syncForAddresses(fresh.db, {
        addresses: ['A', 'C'],
        from: bc.score,
        limit: 0,
        order: 'asc',
      });
      assert.deepStrictEqual(txids(fromUp), [genesis.txid]);
    });

    test('syncForAddresses: the limit is per address', async () => {
      // A: ab, genesis; C: bc. One each: A's first (ab) and C's first (bc).
      const asc = await syncForAddresses(fresh.db, {
        addresses: ['A', 'C'],
        from: 0n,
        limit: 1,
        order: 'asc',
      });
      assert.deepStrictEqual(txids(asc), [ab.txid, bc.txid]);
      const desc = await syncForAddresses(fresh.db, {
        addresses: ['A', 'C'],
        from: 0n,
        limit: 1,
        order: 'desc',
      });
      assert.deepStrictEqual(txids(desc), [genesis.txid, bc.txid]);
      // B: ab, bc. A and B both pick ab first: it counts for both, and comes once.
      const shared = await syncForAddresses(fresh.db, {
        addresses: ['A', 'B'],
        from: 0n,
        limit: 1,
        order: 'asc',
      });
      assert.deepStrictEqual(txids(shared), [ab.txid]);
    });

    test('rawTransaction: the stored bytes, null when unknown', async () => {
      assert.deepStrictEqual(await rawTransaction(fresh.db, genesis.txid), rawGenesis);
      assert.deepStrictEqual(await rawTransaction(fresh.db, genesis.txid.toUpperCase()), rawGenesis);
      assert.equal(await rawTransaction(fresh.db, randomTxid()), null);
    });
  });

  // Runs after 'a small history' (tests of a suite run in order), on its own addresses.
  test('agrees with an in-memory model over a random history', async () => {
    const next = prng(20_240_611);
    const addresses = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7'];
    const pick = () => addresses[Math.floor(next() * addresses.length)]!;
    const model = new Map<string, { score: bigint; concerns: Set<string> }>();
    for (let i = 0; i < 40; i++) {
      const senders = [...new Set([pick(), pick()])].slice(0, 1 + Math.floor(next() * 2));
      const outputs = Array.from({ length: 1 + Math.floor(next() * 3) }, () => ({
        owner: pick(),
        amount: 1n,
      }));
      const seeded = await seedTransaction(fresh.db, { senders, outputs });
      model.set(seeded.txid, {
        score: seeded.score,
        concerns: new Set([...senders, ...outputs.map((o) => o.owner)]),
      });
      if (next() < 0.3) {
        const known = [...model.keys()];
        const restated = known[Math.floor(next() * known.length)]!;
        model.get(restated)!.score = await restateTransaction(fresh.db, restated, 'mined', {
          height: 100 + i,
          idx: i,
          hash: 'cd'.repeat(32),
          time: 1_700_000_000 + i,
        });
      }
    }
    const all = [...model.entries()].map(([txid, m]) => ({ txid, ...m }));
    let maxScore = 0n;
    for (const r of all) if (r.score > maxScore) maxScore = r.score;

    const expected = (asked: string[], from: bigint, limit: number, order: 'asc' | 'desc') => {
      const chosen = new Map<string, bigint>();
      for (const address of new Set(asked)) {
        const mine = all
          .filter((r) => r.concerns.has(address))
          .filter((r) => (order === 'asc' ? r.score > from : from === 0n || r.score < from))
          .sort((x, y) => (x.score < y.score ? -1 : 1) * (order === 'asc' ? 1 : -1));
        for (const r of limit === 0 ? mine : mine.slice(0, limit)) chosen.set(r.txid, r.score);
      }
      return [...chosen.entries()]
        .sort((x, y) => (x[1] < y[1] ? -1 : 1) * (order === 'asc' ? 1 : -1))
        .map(([txid, score]) => ({ txid, score }));
    };

    for (let q = 0; q < 60; q++) {
      const asked = Array.from({ length: 1 + Math.floor(next() * 3) }, pick);
      const from = next() < 0.3 ? 0n : BigInt(Math.floor(next() * Number(maxScore + 2n)));
      const limit = next() < 0.3 ? 0 : 1 + Math.floor(next() * 5);
      const order = next() < 0.5 ? 'asc' : 'desc';
      const got = await syncForAddresses(fresh.db, { addresses: asked, from, limit, order });
      assert.deepStrictEqual(
        got.map((r) => ({ txid: r.txid, score: r.score })),
        expected(asked, from, limit, order),
        JSON.stringify({ asked, from: from.toString(), limit, order }),
      );
    }

    const byScore = [...all].sort((x, y) => (x.score < y.score ? -1 : 1));
    for (const [from, limit] of [
      [byScore[0]!.score, 1000],
      [byScore[10]!.score, 5],
      [maxScore, 10],
    ] as const) {
      const got = await syncFrom(fresh.db, { from, limit });
      assert.deepStrictEqual(
        scores(got),
        byScore
          .filter((r) => r.score >= from)
          .slice(0, limit)
          .map((r) => r.score),
      );
    }
  });
});
