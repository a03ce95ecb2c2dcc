// One look at tickets a tracker's sweep has claimed (usecases/track/track-tickets.ts: the due ones;
// usecases/track/wait-for-blocks.ts: the mempool's, when a block comes). MINED tickets are asked
// about once per recorded block (a reorg takes a block out whole); each ticket asked alone
// where its block's look says it moved; transactions the ledger does not know are broadcast
// again, the same bytes, together; what was learnt goes to the caller's applier in one batch.
import { LedgerUnavailableError, type TxStatus } from '../../ledger/port.js';
import {
  type DueTicket,
  keepWatchingMined,
  rescheduleFailedLooks,
} from '../../store/tickets/ticket-tracking.js';
import { type BlockToWatch, watchBlocks } from '../../store/tickets/watched-blocks.js';
import type { ServiceContext } from '../context.js';
import { verdictOf } from '../submit/broadcast-ticket.js';
import { applyLedgerStatuses, type LedgerUpdate } from './apply-ledger-status.js';
import {
  eachAtMost,
  isFinal,
  LOOKS_AT_ONCE,
  lookTimes,
  retryDelayMs,
  tipHeightNow,
} from './tracker-timing.js';

/** Where what the looks learnt goes: a batch of verdicts (the tracker's serial applier). */
export type ApplyUpdates = (updates: readonly LedgerUpdate[]) => Promise<void>;

/** Applies each batch at once, in its own transaction: a sweep run alone (tests, one-off looks). */
export const applyDirectly =
  (ctx: ServiceContext): ApplyUpdates =>
  (updates) =>
    applyLedgerStatuses(ctx, updates);

/**
 * Looks once at tickets a sweep has claimed (leased): asks the ledger, applies what it heard
 * through `apply`, puts MINED tickets whose block stands off to their backstop, and backs off
 * after failed looks, releasing every lease.
 */
export async function lookAtClaimed(
  ctx: ServiceContext,
  due: readonly DueTicket[],
  apply: ApplyUpdates,
): Promise<void> {
  if (due.length === 0) return;
  const tipHeight = await tipHeightNow(ctx.ledger);
  const updates: LedgerUpdate[] = [];
  const unknown: DueTicket[] = [];
  const failedLooks: DueTicket[] = [];
  const stillMined: { ticket: DueTicket; watch: boolean }[] = [];
  const blocks: BlockToWatch[] = [];
  const view = (status: TxStatus) => (tipHeight === undefined ? { status } : { status, tipHeight });
  const take = (ticket: DueTicket, status: TxStatus) => {
    if (status.kind === 'unknown') unknown.push(ticket);
    else
      updates.push({
        txid: ticket.txid,
        view: {
          ...view(status),
          seenAs: ticket.status,
          ...(ticket.status === 'MINED' && ticket.blockHash !== null && { seenBlock: ticket.blockHash }),
        },
      });
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
