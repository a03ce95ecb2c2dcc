// The tracker role: follows every live ticket to its end. Ledger pushes (subscribe) are the
// fast path, coalesced: what arrives within a tick (a mined block's statuses, a reorg's) is
// applied in one database transaction. The sweep is the guarantee: it claims the tickets that
// are due (a push that was applied put them off by a poll interval, so it asks only about what
// pushes left unsettled), with a lease through FOR UPDATE SKIP LOCKED, so several trackers share
// the work without doing any twice; it writes what it learnt in one transaction too.
//
// MINED tickets are watched for reorgs until `finalConfirmations` deep, one look per BLOCK, not
// per ticket: a reorg takes a block out of the chain whole, so when one transaction recorded in
// block H is still mined in H, every ticket recorded there still is. The block has a row of its
// own, looked at every poll (watch-blocks.ts, docs/adr/0006); its tickets get only a backstop
// look, and are settled final together, or made due to be asked one by one when the block left
// the chain. A MINED ticket that this sweep claims (its backstop, its block gone) is looked at
// once per block too. A SUCCESS ticket waits for a block (docs/adr/0008, wait-for-blocks.ts):
// it is asked about at a new block's first look, as one of a poll's few canaries, or at its
// backstop. Why not pushes alone, or the block hash at a height: ARC serves no block by height,
// its MINED_IN_STALE_BLOCK callbacks may never come (callbacks are optional, and ARC drops a
// callback URL after one failed delivery), so a status asked for is the only proof that works
// on ARC as on the devnet; the devnet's reorg pushes (mempool, then the new block) still take
// the fast path.
import { claimDueTickets } from '../../store/tickets/ticket-tracking.js';
import type { ServiceContext } from '../context.js';
import { applyLedgerStatuses, type LedgerUpdate } from './apply-ledger-status.js';
import { type ApplyUpdates, applyDirectly, lookAtClaimed } from './look-at-tickets.js';
import { leaseEnd, SWEEP_LIMIT } from './tracker-timing.js';
import { wakeCanariesNow } from './wait-for-blocks.js';
import { watchDueBlocks } from './watch-blocks.js';

/** Statuses applied per database transaction at most. */
const MAX_PUSH_BATCH = 1000;

/** Looks at up to `limit` due tickets once; returns how many it claimed. */
export async function trackDueTickets(
  ctx: ServiceContext,
  limit = SWEEP_LIMIT,
  apply: ApplyUpdates = applyDirectly(ctx),
): Promise<number> {
  const now = ctx.now();
  const due = await claimDueTickets(ctx.db, now, leaseEnd(now), limit);
  await lookAtClaimed(ctx, due, apply);
  return due.length;
}

/**
 * Runs the sweep until stopped. Ledger pushes and what the sweep learns go through ONE serial
 * applier, in the order they arrive, a tick's worth per database transaction: a status the
 * sweep asked for reaches subscribers (a push) before the sweep's own update of it, so a push
 * never lands after a newer look of the sweep (an old `mempool` undoing a later MINED).
 */
/** Told after each sweep: whether it finished without an error, and how long it took (liveness, metrics). */
export type RoundListener = (ok: boolean, seconds: number) => void;

export function startTracker(
  ctx: ServiceContext,
  intervalMs = 500,
  onRound?: RoundListener,
): { stop(): Promise<void> } {
  let stopped = false;
  const applier = serialApplier(ctx);
  const unsubscribe = ctx.ledger.subscribe((txid, status) => {
    applier
      .add([{ txid, view: { status } }])
      .catch((err) => ctx.log.error({ txid, err }, 'applying a ledger push failed'));
  });
  let canariesAt = Number.NEGATIVE_INFINITY;
  const sweepUntilStopped = async () => {
    while (!stopped) {
      const startedAt = performance.now();
      let ok = true;
      try {
        // Once a poll, the canaries (docs/adr/0008); then the blocks, whose first look asks about
        // the tickets in the mempool; then the due tickets, this poll's canaries among them.
        if (ctx.now().getTime() - canariesAt >= ctx.tracker.pollIntervalMs) {
          canariesAt = ctx.now().getTime();
          await wakeCanariesNow(ctx).catch((err) =>
            ctx.log.error({ err }, 'choosing the canaries failed; the blocks and tickets are swept'),
          );
        }
        while (!stopped && (await watchDueBlocks(ctx, SWEEP_LIMIT, (u) => applier.add(u))) === SWEEP_LIMIT) {
          // the next batch of watched blocks
        }
        // Drains what is due before sleeping: a sweep that claimed fewer than it may found no more.
        while (!stopped && (await trackDueTickets(ctx, SWEEP_LIMIT, (u) => applier.add(u))) === SWEEP_LIMIT) {
          // the next batch of tickets
        }
      } catch (err) {
        ok = false;
        ctx.log.error({ err }, 'tracker sweep failed');
      }
      onRound?.(ok, (performance.now() - startedAt) / 1000);
      await sleep(intervalMs, () => stopped);
    }
  };
  const sweeping = sweepUntilStopped();
  return {
    async stop() {
      stopped = true;
      unsubscribe();
      await sweeping;
      await applier.idle();
    },
  };
}

/** Applies what it is given in arrival order, gathering a tick's worth into one transaction. */
function serialApplier(ctx: ServiceContext) {
  interface Group {
    left: number;
    failed: boolean;
    resolve: () => void;
    reject: (err: unknown) => void;
  }
  const waiting: { update: LedgerUpdate; group: Group }[] = [];
  let running: Promise<void> | null = null;
  const drain = async () => {
    while (waiting.length > 0) {
      // The rest of this tick (a block's statuses arrive in one loop) joins the batch.
      await new Promise((resolve) => setImmediate(resolve));
      const batch = waiting.splice(0, MAX_PUSH_BATCH);
      let error: unknown = null;
      try {
        await applyLedgerStatuses(
          ctx,
          batch.map((w) => w.update),
        );
      } catch (err) {
        error = err ?? new Error('applying ledger statuses failed');
      }
      for (const { group } of batch) {
        group.left--;
        if (error !== null && !group.failed) {
          group.failed = true;
          group.reject(error);
        } else if (group.left === 0 && !group.failed) group.resolve();
      }
    }
    running = null;
  };
  return {
    add(updates: readonly LedgerUpdate[]): Promise<void> {
      if (updates.length === 0) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const group: Group = { left: updates.length, failed: false, resolve, reject };
        for (const update of updates) waiting.push({ update, group });
        running ??= drain();
      });
    },
    async idle(): Promise<void> {
      while (running !== null) await running;
    },
  };
}

/** Sleeps up to `ms`, waking early (every 50 ms) once `cancelled()` says so. */
async function sleep(ms: number, cancelled: () => boolean): Promise<void> {
  const until = Date.now() + ms;
  while (!cancelled() && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(50, until - Date.now())));
  }
}
