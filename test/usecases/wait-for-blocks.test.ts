// SUCCESS tickets wait for a block (docs/adr/0008), on both databases: a ticket in the mempool
// is put off to its backstop, not the next poll; a block not seen before has the tickets
// waiting since before it claimed and asked about at its row's first look, a poll later, once,
// a page at a time (a ticket a writer holds is skipped, not waited for); each poll's canaries
// are the longest-waiting ticket and the newest that waited a while; and with nobody pushing, the canaries find a block and every ticket in it
// is MINED within two polls, while between blocks the tracker asks only about the canaries.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Ledger, TxStatus } from '../../src/ledger/port.js';
import type { Db } from '../../src/store/db/db.js';
import { claimWaitingTickets, FIRST_WAITING } from '../../src/store/tickets/tickets-waiting.js';
import type { ServiceContext } from '../../src/usecases/context.js';
import { applyLedgerStatuses } from '../../src/usecases/track/apply-ledger-status.js';
import { trackDueTickets } from '../../src/usecases/track/track-tickets.js';
import { MEMPOOL_BACKSTOP_POLLS } from '../../src/usecases/track/tracker-timing.js';
import { wakeCanariesNow } from '../../src/usecases/track/wait-for-blocks.js';
import { watchDueBlocks } from '../../src/usecases/track/watch-blocks.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { randomTxid, seedTicket, seedTransaction } from '../support/seed-store.js';

const NOW = new Date('2026-11-23T12:00:00.000Z');
const POLL_MS = 2000;
const FAR = new Date(NOW.getTime() + 3_600_000);
const blockHash = (n: number) => `bb${n.toString(16).padStart(62, '0')}`;
const minedIn = (n: number): TxStatus => ({
  kind: 'mined',
  blockHash: blockHash(n),
  height: n,
  index: 1,
  blockTime: 1,
  merklePath: '00',
});

function contextOn(db: Db, clock: { now: Date }, ledger: Partial<Ledger> = {}): ServiceContext {
  return {
    db,
    ledger,
    now: () => clock.now,
    tracker: { pollIntervalMs: POLL_MS, finalConfirmations: 6, firstLookAfterMs: 1000 },
    log: { info() {}, warn() {}, error() {} },
  } as unknown as ServiceContext;
}

/** A ticket with its record, submitted `ageMs` before NOW, due at `due`. */
async function ticket(db: Db, status: 'BROADCASTING' | 'SUCCESS', ageMs: number, due: Date = FAR) {
  const txid = randomTxid();
  const id = await seedTicket(db, { txid, status, createdAt: new Date(NOW.getTime() - ageMs) });
  await seedTransaction(db, { txid, outputs: [{ owner: `o-${txid.slice(0, 6)}`, amount: 1n }] });
  await db.query('UPDATE tickets SET next_check_at = $2 WHERE id = $1', [id, due]);
  return { id, txid };
}

describeOnEachDb('SUCCESS tickets wait for a block', (fresh) => {
  const dueAt = async (id: string) => {
    const [row] = await fresh.db.query<{ next_check_at: Date | null }>(
      'SELECT next_check_at FROM tickets WHERE id = $1',
      [id],
    );
    return row!.next_check_at === null ? null : new Date(row!.next_check_at).getTime();
  };
  // Every ticket of an earlier test ended, and no block watched.
  const clearTickets = async () => {
    await fresh.db.query("UPDATE tickets SET status = 'MINED', status_rank = 40, next_check_at = NULL");
    await fresh.db.query('DELETE FROM watched_blocks');
  };

  it('puts a ticket in the mempool off to its backstop, not the next poll', async () => {
    await clearTickets();
    const accepted = await ticket(fresh.db, 'BROADCASTING', 1000);
    await applyLedgerStatuses(contextOn(fresh.db, { now: NOW }), [
      { txid: accepted.txid, view: { status: { kind: 'mempool' }, fromBroadcast: true } },
    ]);
    assert.equal(await dueAt(accepted.id), NOW.getTime() + MEMPOOL_BACKSTOP_POLLS * POLL_MS);
  });

  it("a block not seen before has the waiting tickets asked about at its row's first look, once", async () => {
    await clearTickets();
    const waiting = [await ticket(fresh.db, 'SUCCESS', 60_000), await ticket(fresh.db, 'SUCCESS', 500)];
    const later = await ticket(fresh.db, 'SUCCESS', -500); // submitted after the block was seen
    const [first, second, old] = [
      await ticket(fresh.db, 'SUCCESS', 60_000),
      await ticket(fresh.db, 'SUCCESS', 60_000),
      await ticket(fresh.db, 'SUCCESS', 60_000),
    ];
    // `old` is in the mempool until the last step shows it in an old block.
    const where = new Map<string, TxStatus>([
      [first!.txid, minedIn(101)],
      [second!.txid, minedIn(101)],
    ]);
    const asked: string[] = [];
    const clock = { now: NOW };
    const ctx = contextOn(fresh.db, clock, {
      tip: async () => ({ height: 101, hash: blockHash(101), time: 1 }),
      status: async (txid) => {
        asked.push(txid);
        return where.get(txid) ?? { kind: 'mempool' };
      },
    });
    const nextPoll = async () => {
      asked.length = 0;
      clock.now = new Date(clock.now.getTime() + POLL_MS);
      await watchDueBlocks(ctx, 50);
    };
    const sorted = (txids: string[]) => [...txids].sort();

    await applyLedgerStatuses(ctx, [{ txid: first!.txid, view: { status: minedIn(101), tipHeight: 101 } }]);
    for (const t of waiting)
      assert.equal(await dueAt(t.id), FAR.getTime(), 'not before its pushes have had a poll');
    await nextPoll();
    assert.deepEqual(
      sorted(asked),
      sorted([first!.txid, ...waiting.map((t) => t.txid), second!.txid, old!.txid]),
      "the block's probe, then every ticket submitted before the block was seen, once each",
    );
    assert.ok(!asked.includes(later.txid), 'submitted after the block was seen: not in it');
    const backstop = clock.now.getTime() + MEMPOOL_BACKSTOP_POLLS * POLL_MS;
    for (const t of waiting) assert.equal(await dueAt(t.id), backstop, 'still in the mempool: waits again');
    const [row] = await fresh.db.query<{ status: string; lease_until: Date | null }>(
      'SELECT status, lease_until FROM tickets WHERE id = $1',
      [second!.id],
    );
    assert.deepEqual(
      row,
      { status: 'MINED', lease_until: null },
      'in the block, its push not come: MINED now',
    );

    // The same block again: seen already, its first look done; only its probe is asked.
    await fresh.db.query("UPDATE tickets SET status = 'SUCCESS', status_rank = 20 WHERE id = $1", [
      second!.id,
    ]);
    await applyLedgerStatuses(ctx, [{ txid: second!.txid, view: { status: minedIn(101), tipHeight: 101 } }]);
    await nextPoll();
    assert.deepEqual(asked, [first!.txid], "the block's probe only: the mempool is not asked again");

    // A block final when first seen (a tracker catching up) has the mempool looked at too, and
    // is forgotten after that one look.
    where.set(old!.txid, minedIn(90));
    await applyLedgerStatuses(ctx, [{ txid: old!.txid, view: { status: minedIn(90), tipHeight: 101 } }]);
    assert.equal(await dueAt(old!.id), null, 'final');
    await nextPoll();
    for (const t of waiting) assert.ok(asked.includes(t.txid), 'asked after the old block');
    assert.deepEqual(
      (await fresh.db.query<{ blk_hash: string }>('SELECT blk_hash FROM watched_blocks')).map(
        (r) => r.blk_hash,
      ),
      [blockHash(101)],
      'the final block looked at once, then forgotten',
    );
  });

  it('claims the waiting tickets a page at a time, in submission order', async () => {
    await clearTickets();
    const five: { id: string }[] = [];
    for (let i = 0; i < 5; i++) five.push(await ticket(fresh.db, 'SUCCESS', 1000)); // one submission time
    const lease = new Date(NOW.getTime() + 30_000);
    const pages: string[][] = [];
    for (let after = FIRST_WAITING; ; ) {
      const page = await claimWaitingTickets(fresh.db, NOW, NOW, lease, after, 2);
      if (page === null) break;
      pages.push(page.claimed.map((c) => c.id));
      after = page.next;
    }
    assert.deepEqual(
      pages,
      [five.slice(0, 2), five.slice(2, 4), five.slice(4)].map((p) => p.map((t) => t.id)),
    );
    const rows = await fresh.db.query<{ lease_until: Date; attempts: number }>(
      'SELECT lease_until, attempts FROM tickets WHERE id = ANY($1::uuid[])',
      [five.map((t) => t.id)],
    );
    assert.ok(rows.every((r) => new Date(r.lease_until).getTime() === lease.getTime() && r.attempts === 1));
    assert.equal(
      await claimWaitingTickets(fresh.db, NOW, NOW, lease, FIRST_WAITING, 2),
      null,
      'leased: not again',
    );
  });

  it('skips a waiting ticket that a writer holds, without waiting for it', async (t) => {
    if (fresh.target !== 'postgres') return t.skip('row locks need a second connection (PostgreSQL)');
    await clearTickets();
    const [held, free] = [await ticket(fresh.db, 'SUCCESS', 1000), await ticket(fresh.db, 'SUCCESS', 1000)];
    let release!: () => void;
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const writer = fresh.db.transaction(async (tx) => {
      await tx.query('SELECT id FROM tickets WHERE id = $1 FOR UPDATE', [held!.id]);
      locked();
      await new Promise<void>((resolve) => {
        release = resolve;
      });
    });
    await isLocked;
    const page = await claimWaitingTickets(fresh.db, NOW, NOW, FAR, FIRST_WAITING, 10);
    release();
    await writer;
    assert.deepEqual(
      page?.claimed.map((c) => c.id),
      [free!.id],
      'held: reached by the next block, a canary or its backstop',
    );
  });

  it("each poll's canaries: the longest-waiting ticket and the newest two that waited a poll", async () => {
    await clearTickets();
    // recentBefore = NOW - poll = NOW - 2 s.
    const byAge = new Map<number, { id: string }>();
    for (const age of [100_000, 60_000, 30_000, 10_000, 1000])
      byAge.set(age, await ticket(fresh.db, 'SUCCESS', age));
    const dueNow = await ticket(fresh.db, 'SUCCESS', 200_000, new Date(NOW.getTime() - 1));
    assert.equal(await wakeCanariesNow(contextOn(fresh.db, { now: NOW })), 2, 'the oldest is due already');
    assert.equal(await dueAt(dueNow.id), NOW.getTime() - 1);
    assert.deepEqual(
      await Promise.all(
        [100_000, 60_000, 30_000, 10_000, 1000].map(
          async (age) => (await dueAt(byAge.get(age)!.id)) === NOW.getTime(),
        ),
      ),
      [false, false, true, true, false],
    );
    await fresh.db.query('UPDATE tickets SET next_check_at = $2 WHERE id = $1', [dueNow.id, FAR]);
    assert.equal(await wakeCanariesNow(contextOn(fresh.db, { now: NOW })), 1, 'the oldest, now it waits too');
    assert.equal(await dueAt(dueNow.id), NOW.getTime());
  });

  it('with nobody pushing, the canaries find a block and its tickets are MINED within two polls', async () => {
    await clearTickets();
    const block = { n: 0 };
    let looks = 0;
    const ledger: Partial<Ledger> = {
      tip: async () => ({ height: 200, hash: blockHash(200), time: 1 }),
      status: async () => {
        looks++;
        return block.n === 0 ? { kind: 'mempool' } : minedIn(block.n);
      },
    };
    const clock = { now: NOW };
    const ctx = contextOn(fresh.db, clock, ledger);
    const all: { id: string; txid: string }[] = [];
    for (let i = 0; i < 30; i++) all.push(await ticket(fresh.db, 'BROADCASTING', 30_000 - i * 100));
    await applyLedgerStatuses(
      ctx,
      all.map((t) => ({ txid: t.txid, view: { status: { kind: 'mempool' as const }, fromBroadcast: true } })),
    );
    // One poll, in the tracker's order: the canaries, the blocks, the tickets.
    const poll = async () => {
      clock.now = new Date(clock.now.getTime() + POLL_MS);
      await wakeCanariesNow(ctx);
      while ((await watchDueBlocks(ctx, 50)) === 50) {
        // drain
      }
      while ((await trackDueTickets(ctx, 50)) === 50) {
        // drain
      }
    };
    const mined = async () =>
      (
        await fresh.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM tickets WHERE id = ANY($1::uuid[]) AND status = 'MINED'",
          [all.map((t) => t.id)],
        )
      )[0]!.n;

    for (let i = 0; i < 4; i++) await poll();
    assert.ok(looks <= 4 * 3, `between blocks only the canaries are asked about (${looks} looks in 4 polls)`);
    block.n = 199;
    let polls = 0;
    while ((await mined()) < all.length && polls < 2 * MEMPOOL_BACKSTOP_POLLS) {
      await poll();
      polls++;
    }
    assert.equal(await mined(), all.length);
    assert.ok(polls <= 2, `every ticket MINED within two polls of the block (${polls})`);
  });
});
