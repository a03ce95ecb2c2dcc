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
// due when a block not seen before comes, as one of a poll's few canaries, or at its backstop. Why not pushes alone, or the block hash at a height: ARC
// serves no block by height, its MINED_IN_STALE_BLOCK callbacks may never come (callbacks are
// optional, and ARC drops a callback URL after one failed delivery), so a status asked for is the
// only proof that works on ARC as on the devnet; the devnet's reorg pushes (mempool, then the new
// block) still take the fast path.
import { LedgerUnavailableError, type TxStatus } from '../ledger/port.js';
import {
  claimDueTickets,
  type DueTicket,
  keepWatchingMined,
  rescheduleFailedLooks,
} from '../store/ticket-tracking.js';
import { type BlockToWatch, watchBlocks } from '../store/watched-blocks.js';
import { applyLedgerStatuses, type LedgerUpdate } from './apply-ledger-status.js';
import { verdictOf } from './broadcast-ticket.js';
import type { ServiceContext } from './context.js';
import {
  eachAtMost,
  isFinal,
  LEASE_MS,
  LOOKS_AT_ONCE,
  lookTimes,
  retryDelayMs,
  SWEEP_LIMIT,
  tipHeightNow,
} from './tracker-timing.js';
import { wakeCanariesNow } from './wait-for-blocks.js';
import { watchDueBlocks } from './watch-blocks.js';

/** Statuses applied per database transaction at most. */
const MAX_PUSH_BATCH = 1000;

/** Looks at up to `limit` due tickets once; returns how many it claimed. */
export async function trackDueTickets(
  ctx: ServiceContext,
  limit = SWEEP_LIMIT,
  apply: (updates: readonly LedgerUpdate[]) => Promise<void> = (updates) => applyLedgerStatuses(ctx, updates),
): Promise<number> {
  const now = ctx.now();
  const due = await claimDueTickets(ctx.db, now, new Date(now.getTime() + LEASE_MS), limit);
  if (due.length === 0) return 0;
  const tipHeight = await tipHeightNow(ctx.ledger);
  const updates: LedgerUpdate[] = [];
  const unknown: DueTicket[] = [];
  const failedLooks: DueTicket[] = [];
  const stillMined: { ticket: DueTicket; watch: boolean }[] = [];
  const blocks: BlockToWatch[] = [];
  const view = (status: TxStatus) => (tipHeight === undefined ? { status } : { status, tipHeight });
  const take = (ticket: DueTicket, status: TxStatus) => {
    if (status.kind === 'unknown') unknown.push(ticket);
    else updates.push({ txid: ticket.txid, view: view(status) });
  };
  const lookFailed = (ticket: DueTicket, err: unknown) => {
    failedLooks.push(ticket);
    if (!(err instanceof LedgerUnavailableError))
      ctx.log.error({ ticketId: ticket.id, err }, 'tracking failed');
  };

  // One look per recorded block; each ticket asked about alone where its block's look says it moved.
  const byBlock = new Map<string, DueTicket[]>();
  const alone: DueTicket[] = [];
  for (const ticket of due) {
    if (ticket.status !== 'MINED' || ticket.blockHash === null || ticket.blockHash === '') alone.push(ticket);
    else byBlock.set(ticket.blockHash, [...(byBlock.get(ticket.blockHash) ?? []), ticket]);
  }
  await eachAtMost(LOOKS_AT_ONCE, [...byBlock], async ([hash, group]) => {
    const probe = group[0]!;
    let status: TxStatus;
    try {
      status = await ctx.ledger.status(probe.txid);
    } catch (err) {
      for (const ticket of group) lookFailed(ticket, err);
      return;
    }
    if (status.kind === 'mined' && status.blockHash === hash) {
      const watch = !isFinal(ctx.tracker, tipHeight, status.height);
      if (watch) blocks.push({ hash, height: status.height, probeTxid: probe.txid });
      for (const ticket of group) stillMined.push({ ticket, watch });
      return;
    }
    take(probe, status);
    alone.push(...group.slice(1));
  });
  await eachAtMost(LOOKS_AT_ONCE, alone, async (ticket) => {
    try {
      take(ticket, await ctx.ledger.status(ticket.txid));
    } catch (err) {
      lookFailed(ticket, err);
    }
  });

  // Never reached the ledger, or dropped by it (a reorg, a restart): the same bytes again, together.
  if (unknown.length > 0) {
    try {
      const results = await ctx.ledger.broadcastMany(unknown.map((t) => t.rawTx));
      for (const [i, ticket] of unknown.entries()) {
        const { outcome, update } = verdictOf(ticket.txid, results[i]!);
        if (update !== null) updates.push(update);
        if (outcome.kind === 'unavailable') failedLooks.push(ticket);
      }
    } catch (err) {
      for (const ticket of unknown) lookFailed(ticket, err);
    }
  }
  if (updates.length > 0) {
    try {
      await apply(updates);
    } catch (err) {
      const ids = new Set(updates.map((u) => u.txid));
      for (const ticket of due) if (ids.has(ticket.txid)) lookFailed(ticket, err);
    }
  }
  if (stillMined.length > 0) {
    try {
      // The block's row first: should the process stop in between, the tickets are still due.
      const at = ctx.now();
      const looks = lookTimes(ctx.tracker, at);
      await watchBlocks(ctx.db, blocks, looks.poll, at);
      await keepWatchingMined(
        ctx.db,
        stillMined.map(({ ticket, watch }) => ({ id: ticket.id, blockHash: ticket.blockHash!, watch })),
        looks.backstop,
      );
    } catch (err) {
      for (const { ticket } of stillMined) lookFailed(ticket, err);
    }
  }
  await rescheduleAfterFailures(ctx, failedLooks);
  return due.length;
}

async function rescheduleAfterFailures(ctx: ServiceContext, tickets: readonly DueTicket[]): Promise<void> {
  if (tickets.length === 0) return;
  const now = ctx.now().getTime();
  try {
    await rescheduleFailedLooks(
      ctx.db,
      tickets.map((t) => ({ id: t.id, at: new Date(now + retryDelayMs(t.failures)) })),
    );
  } catch (err) {
    ctx.log.error({ err }, 'rescheduling tickets after failed looks failed; their lease runs out');
  }
}

/**
 * Runs the sweep until stopped. Ledger pushes and what the sweep learns go through ONE serial
 * applier, in the order they arrive, a tick's worth per database transaction: a status the
 * sweep asked for reaches subscribers (a push) before the sweep's own update of it, so a push
 * never lands after a newer look of the sweep (an old `mempool` undoing a later MINED).
 */
export function startTracker(ctx: ServiceContext, intervalMs = 500): { stop(): Promise<void> } {
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
      try {
        // Once a poll, the canaries (docs/adr/0008); then the blocks, whose first look makes the
        // tickets in the mempool due; then the tickets, this poll's canaries and woken among them.
        if (ctx.now().getTime() - canariesAt >= ctx.tracker.pollIntervalMs) {
          canariesAt = ctx.now().getTime();
          await wakeCanariesNow(ctx);
        }
        while (!stopped && (await watchDueBlocks(ctx, SWEEP_LIMIT)) === SWEEP_LIMIT) {
          // the next batch of watched blocks
        }
        // Drains what is due before sleeping: a sweep that claimed fewer than it may found no more.
        while (!stopped && (await trackDueTickets(ctx, SWEEP_LIMIT, (u) => applier.add(u))) === SWEEP_LIMIT) {
          // the next batch of tickets
        }
      } catch (err) {
        ctx.log.error({ err }, 'tracker sweep failed');
      }
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
