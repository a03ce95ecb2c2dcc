// The tracker in batches: a tick's pushes (a mined block's statuses) settle in one database
// transaction; MINED tickets are watched through their block (docs/adr/0006): one look a poll
// for the block, the tickets settled final together once deep enough, made due and asked about
// one by one only when the block left the chain; and a ticket whose block row a race lost is
// still reached, by its backstop.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import type { Ledger, StatusListener, TxStatus } from '../../src/ledger/port.js';
import type { Db } from '../../src/store/db/db.js';
import type { ServiceContext } from '../../src/usecases/context.js';
import { applyLedgerStatuses } from '../../src/usecases/track/apply-ledger-status.js';
import { startTracker, trackDueTickets } from '../../src/usecases/track/track-tickets.js';
import { BACKSTOP_POLLS } from '../../src/usecases/track/tracker-timing.js';
import { watchDueBlocks } from '../../src/usecases/track/watch-blocks.js';
import { countingTransactions } from '../support/counting-transactions.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { randomTxid, seedTicket, seedTransaction } from '../support/seed-store.js';

const T0 = new Date('2026-11-23T00:00:00.000Z');
const POLL_MS = 1000;
const BACKSTOP_MS = BACKSTOP_POLLS * POLL_MS;
const HASH = 'cd'.repeat(32);
const mined = (height: number, hash = HASH): TxStatus => ({
  kind: 'mined',
  blockHash: hash,
  height,
  index: 1,
  blockTime: 1,
  merklePath: '00',
});

function contextOn(db: Db, ledger: Partial<Ledger>, clock: { now: Date }) {
  const counting = countingTransactions(db);
  const ctx = {
    db: counting.db,
    ledger,
    now: () => clock.now,
    tracker: { pollIntervalMs: POLL_MS, finalConfirmations: 6, firstLookAfterMs: 5000 },
    log: { info() {}, warn() {}, error() {} },
  } as unknown as ServiceContext;
  return { ctx, transactions: counting.transactions };
}

async function tickets(db: Db, n: number, status: 'SUCCESS' | 'MINED', hash = HASH) {
  const out: { id: string; txid: string }[] = [];
  for (let i = 0; i < n; i++) {
    const txid = randomTxid();
    const id = await seedTicket(db, { txid, status, createdAt: T0 });
    await seedTransaction(db, {
      txid,
      outputs: [{ owner: 'o', amount: 1n }],
      ...(status === 'MINED' && { block: { height: 10, idx: i + 1, hash, time: 1 } }),
    });
    await db.query('UPDATE tickets SET next_check_at = $2 WHERE id = $1', [id, T0]);
    out.push({ id, txid });
  }
  return out;
}

/** The watched blocks' rows: hash, probe, when due (ms), failures. */
async function watchedBlocks(db: Db) {
  return (
    await db.query<{ blk_hash: string; probe_txid: string; next_check_at: Date; failures: number }>(
      'SELECT blk_hash, probe_txid, next_check_at, failures FROM watched_blocks ORDER BY blk_hash',
    )
  ).map((r) => [r.blk_hash, r.probe_txid, new Date(r.next_check_at).getTime(), r.failures]);
}

describeOnEachDb('tracker batches', (fresh) => {
  const statuses = async (ids: string[]) =>
    (
      await fresh.db.query<{ status: string; next_check_at: Date | null }>(
        'SELECT status, next_check_at FROM tickets WHERE id = ANY($1::uuid[]) ORDER BY id',
        [ids],
      )
    ).map((r) => [r.status, r.next_check_at === null ? null : new Date(r.next_check_at).getTime()]);

  it("a tick's pushes are applied in one database transaction", async () => {
    const seeded = await tickets(fresh.db, 8, 'SUCCESS');
    const listeners: StatusListener[] = [];
    const ledger: Partial<Ledger> = {
      subscribe: (l) => {
        listeners.push(l);
        return () => undefined;
      },
      tip: async () => ({ height: 11, hash: HASH, time: 1 }),
      status: async () => ({ kind: 'unknown' }),
    };
    // Not due until later: only the pushes write.
    await fresh.db.query('UPDATE tickets SET next_check_at = $1', [new Date(T0.getTime() + 3600_000)]);
    const { ctx, transactions } = contextOn(fresh.db, ledger, { now: T0 });
    const tracker = startTracker(ctx, 10_000);
    for (const t of seeded) for (const l of listeners) l(t.txid, mined(10));
    await tracker.stop();
    assert.equal(transactions(), 1, 'one transaction for the block');
    for (const [status] of await statuses(seeded.map((t) => t.id))) assert.equal(status, 'MINED');
  });

  it('watches MINED tickets through their block: one look a poll, settled final together', async () => {
    await fresh.db.query('UPDATE tickets SET next_check_at = NULL');
    await fresh.db.query('DELETE FROM watched_blocks');
    const hash = 'c1'.repeat(32);
    const seeded = await tickets(fresh.db, 6, 'MINED', hash);
    const ids = seeded.map((t) => t.id);
    const asked: string[] = [];
    let tip = 12;
    const ledger: Partial<Ledger> = {
      tip: async () => ({ height: tip, hash, time: 1 }),
      status: async (txid) => {
        asked.push(txid);
        return mined(10, hash);
      },
    };
    const clock = { now: T0 };
    const { ctx } = contextOn(fresh.db, ledger, clock);
    // Tickets watched one by one (as before migration 014): the sweep's look moves them to their block.
    assert.equal(await trackDueTickets(ctx), 6);
    assert.equal(asked.length, 1, 'one look for the block');
    for (const [status, next] of await statuses(ids)) {
      assert.equal(status, 'MINED');
      assert.equal(
        next,
        T0.getTime() + BACKSTOP_MS,
        '3 deep: watched through the block, a backstop of its own',
      );
    }
    assert.deepEqual(await watchedBlocks(fresh.db), [[hash, seeded[0]!.txid, T0.getTime() + POLL_MS, 0]]);

    // Each poll: one look and one row written, whatever the block holds.
    tip = 13;
    clock.now = new Date(T0.getTime() + POLL_MS);
    assert.equal(await trackDueTickets(ctx), 0, 'no ticket due');
    assert.equal(await watchDueBlocks(ctx), 1);
    assert.equal(asked.length, 2);
    assert.deepEqual(await watchedBlocks(fresh.db), [[hash, seeded[0]!.txid, T0.getTime() + 2 * POLL_MS, 0]]);
    for (const [, next] of await statuses(ids))
      assert.equal(next, T0.getTime() + BACKSTOP_MS, 'tickets untouched');

    // The block sweep's failed look backs the row off, as a ticket's does.
    ledger.status = async () => {
      throw new Error('ledger down');
    };
    clock.now = new Date(T0.getTime() + 2 * POLL_MS);
    assert.equal(await watchDueBlocks(ctx), 1);
    assert.deepEqual(await watchedBlocks(fresh.db), [
      [hash, seeded[0]!.txid, T0.getTime() + 2 * POLL_MS + 1000, 1],
    ]);

    ledger.status = async (txid) => {
      asked.push(txid);
      return mined(10, hash);
    };
    tip = 15;
    clock.now = new Date(T0.getTime() + 3 * POLL_MS + 1000);
    assert.equal(await watchDueBlocks(ctx), 1);
    for (const [status, next] of await statuses(ids)) {
      assert.equal(status, 'MINED');
      assert.equal(next, null, '6 deep: final, together');
    }
    assert.deepEqual(await watchedBlocks(fresh.db), [], 'a final block is watched no more');
  });

  it('makes the tickets of a block that left the chain due, and the sweep asks each', async () => {
    await fresh.db.query('UPDATE tickets SET next_check_at = NULL');
    await fresh.db.query('DELETE FROM watched_blocks');
    const hash = 'c2'.repeat(32);
    const seeded = await tickets(fresh.db, 4, 'MINED', hash);
    const ids = seeded.map((t) => t.id);
    const later = new Date(T0.getTime() + BACKSTOP_MS);
    await fresh.db.query('UPDATE tickets SET next_check_at = $2 WHERE id = ANY($1::uuid[])', [ids, later]);
    await fresh.db.query(
      'INSERT INTO watched_blocks (blk_hash, height, probe_txid, next_check_at) VALUES ($1, 10, $2, $3)',
      [hash, seeded[0]!.txid, T0],
    );
    const asked: string[] = [];
    const ledger: Partial<Ledger> = {
      tip: async () => ({ height: 12, hash, time: 1 }),
      status: async (txid) => {
        asked.push(txid);
        return { kind: 'mempool' };
      },
    };
    const { ctx } = contextOn(fresh.db, ledger, { now: T0 });
    assert.equal(await watchDueBlocks(ctx), 1);
    assert.deepEqual(asked, [seeded[0]!.txid], 'the probe only');
    assert.deepEqual(await watchedBlocks(fresh.db), [], 'the row goes');
    for (const [status, next] of await statuses(ids))
      assert.deepEqual([status, next], ['MINED', T0.getTime()]);
    assert.equal(await trackDueTickets(ctx), 4);
    assert.equal(new Set(asked.slice(1)).size, 4, 'then each ticket asked');
    for (const [status] of await statuses(ids)) assert.equal(status, 'SUCCESS');
  });

  it('reaches a ticket whose verdict raced the sweep deleting its final block row, by its backstop', async () => {
    await fresh.db.query('UPDATE tickets SET next_check_at = NULL');
    await fresh.db.query('DELETE FROM watched_blocks');
    const hash = 'c3'.repeat(32);
    const [probe] = await tickets(fresh.db, 1, 'MINED', hash);
    const [late] = await tickets(fresh.db, 1, 'SUCCESS', hash);
    await fresh.db.query(
      'INSERT INTO watched_blocks (blk_hash, height, probe_txid, next_check_at) VALUES ($1, 10, $2, $3)',
      [hash, probe!.txid, T0],
    );
    const ledger: Partial<Ledger> = {
      tip: async () => ({ height: 15, hash, time: 1 }),
      status: async () => mined(10, hash),
    };
    const clock = { now: T0 };
    const { ctx } = contextOn(fresh.db, ledger, clock);
    // The sweep has settled the block's tickets; before it deletes the row, a stale verdict (3
    // deep) makes `late` MINED in that block: its insert of the row finds the row still there.
    const racing: Db = {
      ...fresh.db,
      query: async (sql, params) => {
        if (sql.startsWith('DELETE FROM watched_blocks')) {
          await applyLedgerStatuses(ctx, [
            { txid: late!.txid, view: { status: mined(10, hash), tipHeight: 12 } },
          ]);
        }
        return fresh.db.query(sql, params);
      },
      transaction: (fn) => fresh.db.transaction(fn),
    };
    assert.equal(await watchDueBlocks({ ...ctx, db: racing }), 1);
    assert.deepEqual(await watchedBlocks(fresh.db), [], 'the row is gone');
    assert.deepEqual(await statuses([probe!.id]), [['MINED', null]], 'settled with its block');
    assert.deepEqual(
      await statuses([late!.id]),
      [['MINED', T0.getTime() + BACKSTOP_MS]],
      'missed, but for its backstop',
    );
    clock.now = new Date(T0.getTime() + BACKSTOP_MS);
    assert.equal(await trackDueTickets(ctx), 1, 'the backstop claims it');
    for (const [status, next] of await statuses([late!.id]))
      assert.deepEqual([status, next], ['MINED', null]);
  });

  it('asks each ticket of a block that left the chain, and applies what it hears', async () => {
    await fresh.db.query('UPDATE tickets SET next_check_at = NULL');
    const seeded = await tickets(fresh.db, 4, 'MINED');
    const asked: string[] = [];
    const ledger: Partial<Ledger> = {
      tip: async () => ({ height: 12, hash: HASH, time: 1 }),
      status: async (txid) => {
        asked.push(txid);
        return { kind: 'mempool' };
      },
    };
    const { ctx, transactions } = contextOn(fresh.db, ledger, { now: T0 });
    assert.equal(await trackDueTickets(ctx), 4);
    assert.deepEqual(new Set(asked), new Set(seeded.map((t) => t.txid)), 'each asked once the block moved');
    assert.equal(asked.length, 4);
    assert.equal(transactions(), 1, 'what it heard applied in one transaction');
    for (const [status] of await statuses(seeded.map((t) => t.id))) assert.equal(status, 'SUCCESS');
    const records = await fresh.db.query<{ state: string }>(
      'SELECT state FROM transactions WHERE txid = ANY($1::text[])',
      [seeded.map((t) => t.txid)],
    );
    assert.deepEqual(
      records.map((r) => r.state),
      ['unconfirmed', 'unconfirmed', 'unconfirmed', 'unconfirmed'],
    );
  });

  it("docs/operations.md's queries of what the tracker watches run on this schema", async () => {
    await fresh.db.query('DELETE FROM watched_blocks');
    const hash = 'c4'.repeat(32);
    const [t] = await tickets(fresh.db, 1, 'MINED', hash);
    await fresh.db.query(
      'INSERT INTO watched_blocks (blk_hash, height, probe_txid, next_check_at) VALUES ($1, 10, $2, $3)',
      [hash, t!.txid, T0],
    );
    const docs = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
    const block = /What the tracker is watching right now:\s*```sql\n([\s\S]*?)```/.exec(docs)?.[1] ?? '';
    const [blocks, due, mempool] = block
      .split(';')
      .map((q) => q.trim())
      .filter((q) => q !== '');
    assert.ok(
      blocks !== undefined && due !== undefined && mempool !== undefined,
      'three queries in the docs',
    );
    const rows = await fresh.db.query<{ blk_hash: string; height: number }>(blocks);
    assert.deepEqual(
      rows.map((r) => [r.blk_hash, r.height]),
      [[hash, 10]],
    );
    const counts = await fresh.db.query<{ status: string }>(due);
    assert.ok(counts.some((r) => r.status === 'MINED'));
    await tickets(fresh.db, 2, 'SUCCESS');
    const [waiting] = await fresh.db.query<{ longest_waiting: Date; in_the_mempool: string | number }>(
      mempool,
    );
    assert.equal(Number(waiting!.in_the_mempool) >= 2, true);
    assert.equal(new Date(waiting!.longest_waiting).getTime() <= T0.getTime(), true);
  });
});
