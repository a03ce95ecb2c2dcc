// Ledger verdicts in batches, on both databases: one database transaction for a batch mixing
// accepted, mined, reorged (out and back in, in one batch), rejected with a cascade and a stale
// broadcast answer; one new score per changed record (its addresses and outputs carry it), none
// for a record left as it was; callback events with the ticket's next seq; and on PostgreSQL a
// poller of the change feed never skips a record while batches commit concurrently.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { TxStatus } from '../../src/ledger/port.js';
import type { Db } from '../../src/store/db/db.js';
import { feedBound } from '../../src/store/feed/feed-bound.js';
import type { ServiceContext } from '../../src/usecases/context.js';
import { applyLedgerStatuses, type LedgerUpdate } from '../../src/usecases/track/apply-ledger-status.js';
import { BACKSTOP_POLLS, MEMPOOL_BACKSTOP_POLLS } from '../../src/usecases/track/tracker-timing.js';
import { countingTransactions } from '../support/counting-transactions.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { backendPid, holdOpen, inside, runWhileHeld } from '../support/held-transaction.js';
import { randomTxid, seedTicket, seedTransaction } from '../support/seed-store.js';
import { TRACKER_POLL_MS, trackerContext } from '../support/tracker-context.js';

const NOW = new Date('2026-11-23T12:00:00.000Z');
const POLL_MS = TRACKER_POLL_MS;

const contextOn = (db: Db): ServiceContext => trackerContext(db, NOW);

const mined = (hash: string, height: number, index = 1): TxStatus => ({
  kind: 'mined',
  blockHash: hash,
  height,
  index,
  blockTime: 1_700_000_000 + height,
  merklePath: '00',
});
const blockHash = (n: number) => n.toString(16).padStart(64, '0');

/** A ticket with its record: outputs to `owner`, spending `spends` (reserved while BROADCASTING). */
async function ticketWithRecord(
  db: Db,
  opts: {
    status: 'BROADCASTING' | 'SUCCESS' | 'MINED';
    spends?: string[];
    block?: { height: number; idx: number; hash: string; time: number };
    callbackUrl?: string;
  },
) {
  const txid = randomTxid();
  const id = await seedTicket(db, {
    txid,
    status: opts.status,
    callbackUrl: opts.callbackUrl ?? null,
    createdAt: new Date(NOW.getTime() - 60_000),
  });
  const seeded = await seedTransaction(db, {
    txid,
    spends: opts.spends ?? [],
    outputs: [{ owner: `owner-${txid.slice(0, 6)}`, amount: 10n }],
    ...(opts.block !== undefined && { block: opts.block }),
    ...(opts.status === 'BROADCASTING' && { ticketId: id }),
  });
  if (opts.status === 'MINED') {
    await db.query('UPDATE tickets SET first_mined_at = $2 WHERE id = $1', [id, NOW]);
  }
  return { id, txid, outpoint: seeded.outpoints[0]!, score: seeded.score };
}

describeOnEachDb('applyLedgerStatuses', (fresh) => {
  const ticket = async (id: string) =>
    (
      await fresh.db.query<{ status: string; errors: string | null; next_check_at: Date | null }>(
        'SELECT status, errors, next_check_at FROM tickets WHERE id = $1',
        [id],
      )
    )[0]!;
  const record = async (txid: string) =>
    (
      await fresh.db.query<{ state: string; score: string; blk_hash: string; height: number }>(
        'SELECT state, score, blk_hash, height FROM transactions WHERE txid = $1',
        [txid],
      )
    )[0]!;

  it('applies a mixed batch in one transaction, with one score per changed record and cascades', async () => {
    const parent = await seedTransaction(fresh.db, {
      outputs: [{ owner: 'alice', amount: 100n }],
      block: { height: 1, idx: 1, hash: blockHash(1), time: 1 },
    });
    // Accepted: BROADCASTING -> SUCCESS; its input and funding output are spent by the ticket's
    // status alone (ADR 0019): neither row is written.
    const accepted = await ticketWithRecord(fresh.db, {
      status: 'BROADCASTING',
      spends: [parent.outpoints[0]!],
    });
    await fresh.db.query(
      `INSERT INTO funding_outputs (txid, vout, satoshis, script, state, reserved_by)
       VALUES ($1, 0, 500, '\\x00', 'reserved', $2), ($1, 1, 500, '\\x00', 'available', $3)`,
      [randomTxid(), accepted.id, null],
    );
    // Mined: SUCCESS -> MINED, record mined in block 5.
    const toMine = await ticketWithRecord(fresh.db, { status: 'SUCCESS' });
    // Reorged out and mined again in another block, in the same batch: two events.
    const reorged = await ticketWithRecord(fresh.db, {
      status: 'MINED',
      block: { height: 4, idx: 1, hash: blockHash(4), time: 4 },
      callbackUrl: 'https://receiver.example/cb',
    });
    // Rejected, with a child spending its output and a grandchild (BROADCASTING) spending the child's.
    const root = await ticketWithRecord(fresh.db, { status: 'SUCCESS' });
    const child = await ticketWithRecord(fresh.db, {
      status: 'SUCCESS',
      spends: [root.outpoint],
      callbackUrl: 'https://receiver.example/child',
    });
    const grandchild = await ticketWithRecord(fresh.db, { status: 'BROADCASTING', spends: [child.outpoint] });
    const grandFunding = randomTxid();
    await fresh.db.query(
      `INSERT INTO funding_outputs (txid, vout, satoshis, script, state, reserved_by) VALUES ($1, 0, 500, '\\x00', 'reserved', $2)`,
      [grandFunding, grandchild.id],
    );
    // A stale broadcast answer: mempool for a MINED ticket changes nothing.
    const stale = await ticketWithRecord(fresh.db, {
      status: 'MINED',
      block: { height: 3, idx: 1, hash: blockHash(3), time: 3 },
    });
    const staleBefore = await fresh.db.query('SELECT * FROM tickets WHERE id = $1', [stale.id]);
    const eventsBefore = await fresh.db.query<{ n: number }>(
      'SELECT COALESCE(MAX(seq), 0)::int AS n FROM events WHERE ticket_id = $1',
      [reorged.id],
    );
    await fresh.db.query(
      `INSERT INTO events (ticket_id, webhook_id, seq, payload) VALUES ($1, 'msg_seed_1', 1, '{}')`,
      [reorged.id],
    );
    const [{ max }] = (await fresh.db.query<{ max: string }>(
      'SELECT MAX(score)::text AS max FROM transactions',
    )) as [{ max: string }];

    const updates: LedgerUpdate[] = [
      { txid: accepted.txid, view: { status: { kind: 'mempool' }, fromBroadcast: true } },
      { txid: toMine.txid, view: { status: mined(blockHash(5), 5), tipHeight: 6 } },
      { txid: reorged.txid, view: { status: { kind: 'mempool' } } },
      { txid: root.txid, view: { status: { kind: 'rejected', reason: 'double spent' } } },
      { txid: stale.txid, view: { status: { kind: 'mempool' }, fromBroadcast: true } },
      { txid: randomTxid(), view: { status: { kind: 'mempool' } } },
      { txid: reorged.txid, view: { status: mined(blockHash(50), 4, 2) } },
    ];
    const counting = countingTransactions(fresh.db);
    const transitions: string[] = [];
    await applyLedgerStatuses(
      {
        ...contextOn(counting.db),
        onTransition: (t) => transitions.push(`${t.txid.slice(0, 6)} ${t.from}>${t.to}`),
      },
      updates,
    );
    assert.equal(counting.transactions(), 1, 'one database transaction');

    assert.equal((await ticket(accepted.id)).status, 'SUCCESS');
    assert.equal((await ticket(toMine.id)).status, 'MINED');
    assert.equal((await ticket(reorged.id)).status, 'MINED');
    assert.equal((await ticket(root.id)).status, 'FAILED');
    assert.equal((await ticket(child.id)).status, 'FAILED');
    assert.equal((await ticket(grandchild.id)).status, 'FAILED');
    assert.equal((await ticket(root.id)).errors, 'double spent');
    assert.equal(
      (await ticket(child.id)).errors,
      `an input comes from transaction ${root.txid}, which failed: double spent`,
    );
    assert.equal(
      (await ticket(grandchild.id)).errors,
      `an input comes from transaction ${child.txid}, which failed: an input comes from transaction ${root.txid}, which failed: double spent`,
    );
    assert.equal((await ticket(root.id)).next_check_at, null);
    assert.equal(
      new Date((await ticket(toMine.id)).next_check_at!).getTime(),
      NOW.getTime() + BACKSTOP_POLLS * POLL_MS,
      'mined 2 deep: watched through its block, only a backstop look of its own',
    );
    assert.equal(
      new Date((await ticket(accepted.id)).next_check_at!).getTime(),
      NOW.getTime() + MEMPOOL_BACKSTOP_POLLS * POLL_MS,
      'in the mempool: waits for a block, or its backstop (docs/adr/0008)',
    );
    const watched = await fresh.db.query<{
      blk_hash: string;
      height: number;
      probe_txid: string;
      next_check_at: Date;
    }>('SELECT blk_hash, height, probe_txid, next_check_at FROM watched_blocks ORDER BY blk_hash');
    assert.deepEqual(
      watched.map((w) => [w.blk_hash, w.height, w.probe_txid, new Date(w.next_check_at).getTime()]),
      [
        [blockHash(5), 5, toMine.txid, NOW.getTime() + POLL_MS],
        [blockHash(50), 4, reorged.txid, NOW.getTime() + POLL_MS],
      ],
      'each block of a watched MINED ticket, looked at next poll',
    );
    assert.deepEqual(await fresh.db.query('SELECT * FROM tickets WHERE id = $1', [stale.id]), staleBefore);

    // Reservations: the accepted ticket's input and funding output are as the claim left them
    // (spent, since the ticket left BROADCASTING); the grandchild's funding output is back.
    const [input] = await fresh.db.query<{ reserved_by: string | null; spent_by: string }>(
      'SELECT reserved_by::text AS reserved_by, spent_by FROM token_outputs WHERE txid = $1',
      [parent.txid],
    );
    assert.deepEqual(input, { reserved_by: accepted.id, spent_by: accepted.txid });
    const funding = await fresh.db.query<{ state: string; reserved_by: string | null }>(
      'SELECT state, reserved_by::text AS reserved_by FROM funding_outputs ORDER BY state',
    );
    assert.deepEqual(
      funding.map((f) => [f.state, f.reserved_by]),
      [
        ['available', null],
        ['available', null],
        ['reserved', accepted.id],
      ],
      'accepted: left as claimed; the grandchild never reached the network: back to the pool',
    );
    // Failed: outputs gone, their inputs free again.
    for (const failed of [root, child, grandchild]) {
      assert.equal((await record(failed.txid)).state, 'failed');
      const outputs = await fresh.db.query('SELECT 1 FROM token_outputs WHERE txid = $1', [failed.txid]);
      assert.equal(outputs.length, 0);
    }

    // One new score per changed record, all above what was there, distinct; mirrored in its
    // address rows; its outputs keep the score they were recorded with (ADR 0003).
    const changed = [toMine, reorged, root, child, grandchild];
    const scores = await Promise.all(changed.map(async (c) => BigInt((await record(c.txid)).score)));
    assert.equal(new Set(scores).size, changed.length);
    for (const score of scores) assert.ok(score > BigInt(max), `${score} > ${max}`);
    for (const unchanged of [accepted, stale])
      assert.equal(
        BigInt((await record(unchanged.txid)).score),
        unchanged.score,
        'an unchanged record keeps its score',
      );
    for (const c of [toMine, reorged]) {
      const r = await record(c.txid);
      const addresses = await fresh.db.query<{ score: string }>(
        'SELECT score FROM transaction_addresses WHERE txid = $1',
        [c.txid],
      );
      assert.ok(addresses.length >= 1);
      for (const a of addresses) assert.equal(a.score, r.score);
      const outputs = await fresh.db.query<{ score: string }>(
        'SELECT score FROM token_outputs WHERE txid = $1',
        [c.txid],
      );
      assert.equal(outputs.length, 1);
      for (const o of outputs) assert.equal(BigInt(o.score), c.score, 'an output keeps its score');
    }
    assert.deepEqual(
      { ...(await record(reorged.txid)), score: undefined },
      { state: 'mined', blk_hash: blockHash(50), height: 4, score: undefined },
    );

    // Events: the reorged ticket's SUCCESS then MINED, after the seq it had; the child's FAILED.
    assert.equal(eventsBefore[0]!.n, 0);
    const events = await fresh.db.query<{
      seq: number;
      webhook_id: string;
      payload: { status: string; errors: string | null };
    }>('SELECT seq, webhook_id, payload FROM events WHERE ticket_id = $1 ORDER BY seq', [reorged.id]);
    assert.deepEqual(
      events.map((e) => [e.seq, e.payload.status ?? null]),
      [
        [1, null],
        [2, 'SUCCESS'],
        [3, 'MINED'],
      ],
    );
    assert.equal(events[2]!.webhook_id, `msg_${reorged.id.replaceAll('-', '')}_3`);
    const childEvents = await fresh.db.query<{ payload: { status: string; errors: string } }>(
      'SELECT payload FROM events WHERE ticket_id = $1',
      [child.id],
    );
    assert.deepEqual(
      childEvents.map((e) => e.payload.status),
      ['FAILED'],
    );
    // Transitions reported after commit: children fail before their parent.
    const failOrder = transitions.filter((t) => t.endsWith('>FAILED'));
    assert.deepEqual(failOrder, [
      `${grandchild.txid.slice(0, 6)} BROADCASTING>FAILED`,
      `${child.txid.slice(0, 6)} SUCCESS>FAILED`,
      `${root.txid.slice(0, 6)} SUCCESS>FAILED`,
    ]);
    assert.ok(transitions.includes(`${reorged.txid.slice(0, 6)} MINED>SUCCESS`));
    assert.ok(transitions.includes(`${reorged.txid.slice(0, 6)} SUCCESS>MINED`));
  });

  it('settles a mined ticket as final when the tip is deep enough, and leaves FAILED tickets alone', async () => {
    const deep = await ticketWithRecord(fresh.db, { status: 'SUCCESS' });
    const failed = await ticketWithRecord(fresh.db, { status: 'SUCCESS' });
    await applyLedgerStatuses(contextOn(fresh.db), [
      { txid: failed.txid, view: { status: { kind: 'rejected', reason: 'x' } } },
    ]);
    const before = await record(failed.txid);
    await applyLedgerStatuses(contextOn(fresh.db), [
      { txid: deep.txid, view: { status: mined(blockHash(7), 7), tipHeight: 12 } },
      { txid: failed.txid, view: { status: mined(blockHash(7), 7), tipHeight: 12 } },
    ]);
    assert.equal((await ticket(deep.id)).status, 'MINED');
    assert.equal((await ticket(deep.id)).next_check_at, null, '6 deep: final');
    assert.deepEqual(
      await fresh.db.query<{ next_check_at: Date }>(
        'SELECT next_check_at FROM watched_blocks WHERE blk_hash = $1',
        [blockHash(7)],
      ),
      [{ next_check_at: new Date(NOW.getTime() + POLL_MS) }],
      'a block final when first seen has its row for one look (which makes the mempool due)',
    );
    assert.equal((await ticket(failed.id)).status, 'FAILED');
    assert.deepEqual(await record(failed.txid), before);
  });

  if (fresh.target === 'postgres') {
    it('concurrent batches never let a poller of the change feed skip a record', async () => {
      const tickets: Awaited<ReturnType<typeof ticketWithRecord>>[] = [];
      for (let i = 0; i < 60; i++) tickets.push(await ticketWithRecord(fresh.db, { status: 'SUCCESS' }));
      const seen = new Map<string, bigint>();
      let last = 0n;
      let done = false;
      // A poller as every reader of the feed: up to the bound, read in a statement before.
      const poll = async () => {
        const bound = await feedBound(fresh.db);
        const rows = await fresh.db.query<{ txid: string; score: string }>(
          'SELECT txid, score::text AS score FROM transactions t WHERE t.score > $1 AND t.score <= $2 ORDER BY t.score',
          [last.toString(), bound.toString()],
        );
        for (const row of rows) {
          const score = BigInt(row.score);
          assert.ok(score > last, 'never below what was seen');
          last = score;
          seen.set(row.txid, score);
        }
      };
      const poller = (async () => {
        while (!done) await poll();
      })();
      const batches = Array.from({ length: 6 }, (_, b) =>
        tickets.slice(b * 10, b * 10 + 10).map((t, i) => ({
          txid: t.txid,
          view: { status: mined(blockHash(100 + b), 100 + b, i + 1) },
        })),
      );
      // Each batch twice: mined, then reorged out, at once from several connections.
      await Promise.all([
        ...batches.map((batch) => applyLedgerStatuses(contextOn(fresh.db), batch)),
        ...batches.map((batch) =>
          applyLedgerStatuses(
            contextOn(fresh.db),
            batch.map((u) => ({ txid: u.txid, view: { status: { kind: 'mempool' as const } } })),
          ),
        ),
      ]);
      done = true;
      await poller;
      await poll();
      for (const t of tickets) {
        const final = BigInt((await record(t.txid)).score);
        assert.equal(seen.get(t.txid), final, `the poller saw ${t.txid}'s last change`);
      }
    });
  }

  it('a spender claimed while its parent is being failed fails with it (PostgreSQL)', async (t) => {
    if (fresh.db.dialect !== 'postgres') return t.skip('PGlite runs one transaction at a time');
    const root = await ticketWithRecord(fresh.db, { status: 'SUCCESS' });
    // A transfer spending the root's output is being claimed: its reservation written, not
    // committed, when the root's rejection comes.
    let child: Awaited<ReturnType<typeof ticketWithRecord>> | undefined;
    const claiming = holdOpen(fresh.db, async (tx) => {
      const inTx: Db = { ...inside(fresh.db, tx), query: (sql, params) => tx.query(sql, params) };
      child = await ticketWithRecord(inTx, { status: 'BROADCASTING', spends: [root.outpoint] });
      return backendPid(tx);
    });
    await runWhileHeld(
      fresh.db,
      claiming,
      () =>
        applyLedgerStatuses(contextOn(fresh.db), [
          { txid: root.txid, view: { status: { kind: 'rejected', reason: 'double spent' } } },
        ]),
      'the rejection to wait for the claim',
    );
    assert.equal((await ticket(root.id)).status, 'FAILED');
    assert.equal((await ticket(child!.id)).status, 'FAILED', 'the spender of a failed output fails too');
    const left = await fresh.db.query('SELECT 1 FROM token_outputs WHERE txid = $1', [child!.txid]);
    assert.equal(left.length, 0, 'no output of the spender is left in the index');
  });
});
