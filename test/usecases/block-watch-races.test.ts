// The block watch under concurrency (docs/adr/0006), on both databases (on PostgreSQL the work
// really overlaps, on a pool): two block sweeps share the due blocks, each looked at once; and
// verdict batches (new blocks, stale looks at old ones) racing block sweeps, the ticket sweep
// and reorgs never deadlock and never strand a ticket: once the backstops have come, every
// ticket is settled MINED in the block that holds it now, and no block is watched.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Ledger, TxStatus } from '../../src/ledger/port.js';
import type { Db } from '../../src/store/db/db.js';
import type { ServiceContext } from '../../src/usecases/context.js';
import { applyLedgerStatuses } from '../../src/usecases/track/apply-ledger-status.js';
import { trackDueTickets } from '../../src/usecases/track/track-tickets.js';
import { BACKSTOP_POLLS } from '../../src/usecases/track/tracker-timing.js';
import { watchDueBlocks } from '../../src/usecases/track/watch-blocks.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { randomTxid, seedTicket, seedTransaction } from '../support/seed-store.js';

const T0 = new Date('2026-11-23T00:00:00.000Z');
const POLL_MS = 1000;
const blockHash = (n: number) => `b1${n.toString(16).padStart(62, '0')}`;

/** The status of a transaction mined in `at`. */
function statusIn(at: { hash: string; height: number }): TxStatus {
  return { kind: 'mined', blockHash: at.hash, height: at.height, index: 1, blockTime: 1, merklePath: '00' };
}

/** A ledger that knows where each txid is mined, answering after a few ms (looks overlap). */
function chain(tip: () => number) {
  const minedIn = new Map<string, { hash: string; height: number }>();
  const asked: string[] = [];
  const ledger: Partial<Ledger> = {
    tip: async () => ({ height: tip(), hash: blockHash(tip()), time: 1 }),
    status: async (txid): Promise<TxStatus> => {
      asked.push(txid);
      await new Promise((r) => setTimeout(r, 2));
      const at = minedIn.get(txid);
      return at === undefined ? { kind: 'mempool' } : statusIn(at);
    },
  };
  return { ledger, minedIn, asked };
}

/** A context whose logged errors (a sweep's failed statement, a deadlock) are kept in `errors`. */
function contextOn(
  db: Db,
  ledger: Partial<Ledger>,
  clock: { now: Date },
  errors: unknown[] = [],
): ServiceContext {
  return {
    db,
    ledger,
    now: () => clock.now,
    tracker: { pollIntervalMs: POLL_MS, finalConfirmations: 6, firstLookAfterMs: 5000 },
    log: { info() {}, warn() {}, error: (fields: unknown) => errors.push(fields) },
  } as unknown as ServiceContext;
}

async function successTicket(db: Db): Promise<{ id: string; txid: string }> {
  const txid = randomTxid();
  const id = await seedTicket(db, { txid, status: 'SUCCESS', createdAt: T0 });
  await seedTransaction(db, { txid, outputs: [{ owner: 'o', amount: 1n }] });
  return { id, txid };
}

describeOnEachDb('block watch races', (fresh) => {
  it('two block sweeps at once share the due blocks, each looked at once', async () => {
    await fresh.db.query('DELETE FROM watched_blocks');
    const { ledger, minedIn, asked } = chain(() => 12);
    for (let n = 0; n < 20; n++) {
      const { txid } = await successTicket(fresh.db);
      minedIn.set(txid, { hash: blockHash(1000 + n), height: 10 });
      await fresh.db.query(
        'INSERT INTO watched_blocks (blk_hash, height, probe_txid, next_check_at) VALUES ($1, 10, $2, $3)',
        [blockHash(1000 + n), txid, T0],
      );
    }
    const ctx = contextOn(fresh.db, ledger, { now: T0 });
    const [a, b] = await Promise.all([watchDueBlocks(ctx, 50), watchDueBlocks(ctx, 50)]);
    assert.equal(a + b, 20);
    assert.equal(asked.length, 20);
    assert.equal(new Set(asked).size, 20, 'no block looked at twice');
  });

  it('verdicts racing block sweeps and reorgs neither deadlock nor strand a ticket', async () => {
    await fresh.db.query('DELETE FROM watched_blocks');
    let tip = 10;
    const { ledger, minedIn } = chain(() => tip);
    const clock = { now: T0 };
    const errors: unknown[] = [];
    const ctx = contextOn(fresh.db, ledger, clock, errors);
    const all: { id: string; txid: string; first: { hash: string; height: number } }[] = [];
    for (let round = 0; round < 12; round++) {
      // A new block at the tip with 5 tickets in it, pushed as it comes.
      tip++;
      const block = { hash: blockHash(tip), height: tip };
      const newcomers: (typeof all)[number][] = [];
      for (let i = 0; i < 5; i++) newcomers.push({ ...(await successTicket(fresh.db)), first: block });
      for (const t of newcomers) minedIn.set(t.txid, block);
      all.push(...newcomers);
      // Every third round the block before the last leaves the chain: its transactions are
      // mined at the same height in another block, which nobody pushes.
      if (round % 3 === 2) {
        const orphaned = tip - 2;
        for (const t of all) {
          if (minedIn.get(t.txid)!.height === orphaned)
            minedIn.set(t.txid, { hash: blockHash(5000 + round), height: orphaned });
        }
      }
      clock.now = new Date(T0.getTime() + round * POLL_MS);
      // Stale looks at older tickets (their first block, 1 deep) land before, during or after
      // the sweeps' statements.
      const stale = all.slice(0, -5).filter((_, k) => k % 3 === round % 3);
      const late = (round * 7) % 9;
      await Promise.all([
        new Promise((r) => setTimeout(r, late)).then(() =>
          applyLedgerStatuses(ctx, [
            ...newcomers.map((t) => ({ txid: t.txid, view: { status: statusIn(block), tipHeight: tip } })),
            ...stale.map((t) => ({
              txid: t.txid,
              view: { status: statusIn(t.first), tipHeight: t.first.height },
            })),
          ]),
        ),
        watchDueBlocks(ctx, 50),
        watchDueBlocks(ctx, 50),
        trackDueTickets(ctx, 50),
      ]);
    }
    // Every block final now; after the backstops, nothing is left watched.
    tip += 10;
    // The last poll: a block final when first seen (a backstop's look) has its row for one look.
    for (const after of [POLL_MS * 20, POLL_MS * (BACKSTOP_POLLS + 20), POLL_MS * (BACKSTOP_POLLS + 21)]) {
      clock.now = new Date(T0.getTime() + after);
      while ((await watchDueBlocks(ctx, 50)) > 0 || (await trackDueTickets(ctx, 50)) > 0) {
        // drain
      }
    }
    const left = await fresh.db.query<{ txid: string; status: string; watched: boolean; blk_hash: string }>(
      `SELECT k.txid, k.status, k.next_check_at IS NOT NULL AS watched, x.blk_hash
         FROM tickets k JOIN transactions x ON x.txid = k.txid WHERE k.id = ANY($1::uuid[])`,
      [all.map((t) => t.id)],
    );
    assert.equal(left.length, 60);
    assert.deepEqual(
      left.filter((r) => r.status !== 'MINED' || r.watched || r.blk_hash !== minedIn.get(r.txid)!.hash),
      [],
      'every ticket MINED in the block that holds it now, and settled',
    );
    assert.ok(
      all.some((t) => minedIn.get(t.txid)!.hash !== t.first.hash),
      'some tickets were reorged',
    );
    assert.deepEqual(await fresh.db.query('SELECT blk_hash FROM watched_blocks'), [], 'no block watched');
    assert.deepEqual(errors, [], 'no sweep failed');
  });
});
