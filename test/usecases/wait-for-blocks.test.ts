// SUCCESS tickets wait for a block (docs/adr/0008), on both databases: a ticket in the mempool
// is put off to its backstop, not the next poll; a block not seen before makes the tickets
// waiting since before it due at its row's first look, a poll later, once, walking them a page at a time (a ticket a writer holds is
// skipped, not waited for); each poll's canaries are the longest-waiting ticket and the newest
// that waited a while; and with nobody pushing, the canaries find a block and every ticket in it
// is MINED within two polls, while between blocks the tracker asks only about the canaries.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Ledger, TxStatus } from '../../src/ledger/port.js';
import type { Db } from '../../src/store/db.js';
import { FIRST_WAITING, wakeWaitingTickets } from '../../src/store/tickets-waiting.js';
import { applyLedgerStatuses } from '../../src/usecases/apply-ledger-status.js';
import type { ServiceContext } from '../../src/usecases/context.js';
import { trackDueTickets } from '../../src/usecases/track-tickets.js';
import { MEMPOOL_BACKSTOP_POLLS } from '../../src/usecases/tracker-timing.js';
import { wakeCanariesNow } from '../../src/usecases/wait-for-blocks.js';
import { watchDueBlocks } from '../../src/usecases/watch-blocks.js';
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

  it("a block not seen before makes the waiting tickets due at its row's first look, once", async () => {
    await clearTickets();
    const waiting = [await ticket(fresh.db, 'SUCCESS', 60_000), await ticket(fresh.db, 'SUCCESS', 500)];
    const soon = await ticket(fresh.db, 'SUCCESS', 60_000, new Date(NOW.getTime() + 500));
    const later = await ticket(fresh.db, 'SUCCESS', -500); // submitted after the block was seen
    const [first, second, old] = [
      await ticket(fresh.db, 'SUCCESS', 60_000),
      await ticket(fresh.db, 'SUCCESS', 60_000),
      await ticket(fresh.db, 'SUCCESS', 60_000),
    ];
    const where = new Map([
      [first!.txid, minedIn(101)],
      [second!.txid, minedIn(101)],
      [old!.txid, minedIn(90)],
    ]);
    const clock = { now: NOW };
    const ctx = contextOn(fresh.db, clock, {
      tip: async () => ({ height: 101, hash: blockHash(101), time: 1 }),
      status: async (txid) => where.get(txid) ?? { kind: 'mempool' },
    });
    const nextPoll = async () => {
      clock.now = new Date(clock.now.getTime() + POLL_MS);
      await watchDueBlocks(ctx, 50);
    };

    await applyLedgerStatuses(ctx, [{ txid: first!.txid, view: { status: minedIn(101), tipHeight: 101 } }]);
    for (const t of waiting)
      assert.equal(await dueAt(t.id), FAR.getTime(), 'not before its pushes have had a poll');
    await nextPoll();
    const firstLook = clock.now.getTime();
    for (const t of waiting) assert.equal(await dueAt(t.id), firstLook, 'woken at the first look');
    assert.equal(await dueAt(second!.id), firstLook, 'in the block, its push not come: asked now');
    assert.equal(await dueAt(soon.id), NOW.getTime() + 500, 'due sooner already: left as it was');
    assert.equal(await dueAt(later.id), FAR.getTime(), 'submitted after the block was seen: not in it');

    // The same block again (another push of it): the block was seen, nothing is woken again.
    for (const t of waiting)
      await fresh.db.query('UPDATE tickets SET next_check_at = $2 WHERE id = $1', [t.id, FAR]);
    await applyLedgerStatuses(ctx, [{ txid: second!.txid, view: { status: minedIn(101), tipHeight: 101 } }]);
    await nextPoll();
    for (const t of waiting) assert.equal(await dueAt(t.id), FAR.getTime(), 'not woken twice by one block');

    // A block final when first seen (a tracker catching up) wakes them too, and is forgotten.
    await applyLedgerStatuses(ctx, [{ txid: old!.txid, view: { status: minedIn(90), tipHeight: 101 } }]);
    assert.equal(await dueAt(old!.id), null, 'final');
    await nextPoll();
    for (const t of waiting) assert.equal(await dueAt(t.id), clock.now.getTime(), 'woken by the old block');
    assert.deepEqual(
      (await fresh.db.query<{ blk_hash: string }>('SELECT blk_hash FROM watched_blocks')).map(
        (r) => r.blk_hash,
      ),
      [blockHash(101)],
      'the final block looked at once, then forgotten',
    );
  });

  it('walks the waiting tickets a page at a time, in submission order', async () => {
    await clearTickets();
    const five: { id: string }[] = [];
    for (let i = 0; i < 5; i++) five.push(await ticket(fresh.db, 'SUCCESS', 1000)); // one submission time
    const due = new Date(NOW.getTime() + 1000);
    const pages: number[] = [];
    for (let after = FIRST_WAITING; ; ) {
      const page = await wakeWaitingTickets(fresh.db, NOW, due, after, 2);
      if (page === null) break;
      pages.push(page.woken);
      after = page.next;
    }
    assert.deepEqual(pages, [2, 2, 1]);
    for (const t of five) assert.equal(await dueAt(t.id), due.getTime());
  });

  it('skips a waiting ticket that a writer holds, without waiting for it', async (t) => {
    if (fresh.target !== 'postgres') return t.skip('row locks need a second connection (PostgreSQL)');
    await clearTickets();
    const [held, free] = [await ticket(fresh.db, 'SUCCESS', 1000), await ticket(fresh.db, 'SUCCESS', 1000)];
    const due = new Date(NOW.getTime() + 1000);
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
    const page = await wakeWaitingTickets(fresh.db, NOW, due, FIRST_WAITING, 10);
    release();
    await writer;
    assert.equal(page?.woken, 1);
    assert.equal(await dueAt(free!.id), due.getTime());
    assert.equal(await dueAt(held!.id), FAR.getTime(), 'held: reached by the next block or its backstop');
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
