// SUCCESS tickets wait for a block (docs/adr/0008). A transaction leaves the mempool only for a
// block, so looking at a ticket in the mempool between two blocks learns nothing but the rare
// rejection or eviction (the mempool's backstop finds those). Two things have waiting tickets
// looked at sooner:
// - a block not seen before: at the block sweep's first look at its row, a poll after a verdict
//   first showed it (the block's pushes have settled their tickets by then), every ticket still
//   in the mempool and submitted before the block was seen is claimed and looked at, a page at
//   a time;
// - the canaries, once a poll: a few waiting tickets made due now, so the tracker's sweep asks
//   about them and finds the blocks that nobody pushes (ARC without callbacks), whose first look
//   then asks about the rest.
import { claimWaitingTickets, FIRST_WAITING, wakeCanaries } from '../../store/tickets/tickets-waiting.js';
import type { ServiceContext } from '../context.js';
import { type ApplyUpdates, lookAtClaimed } from './look-at-tickets.js';
import { CANARIES_OLDEST, CANARIES_RECENT, leaseEnd, SWEEP_LIMIT } from './tracker-timing.js';

/**
 * Looks at the tickets in the mempool submitted by `submittedBy` (when the newest of the blocks
 * being looked at for the first time was seen): claimed a page at a time and looked at as the
 * ticket sweep does, what was learnt applied through `apply`. Claimed and looked at in one go
 * rather than made due for the ticket sweep: one row written per ticket, not two. Never throws:
 * a ticket not looked at is reached by the next block, a canary or its backstop. Returns how many
 * it looked at.
 */
export async function lookAtTheMempool(
  ctx: ServiceContext,
  submittedBy: Date,
  apply: ApplyUpdates,
): Promise<number> {
  let looked = 0;
  try {
    for (let after = FIRST_WAITING; ; ) {
      const now = ctx.now();
      const page = await claimWaitingTickets(ctx.db, submittedBy, now, leaseEnd(now), after, SWEEP_LIMIT);
      if (page === null) break;
      await lookAtClaimed(ctx, page.claimed, apply);
      looked += page.claimed.length;
      after = page.next;
    }
  } catch (err) {
    ctx.log.error({ err }, 'looking at the tickets in the mempool after a new block failed');
  }
  return looked;
}

/** Makes this poll's canaries due now; returns how many. */
export async function wakeCanariesNow(ctx: ServiceContext): Promise<number> {
  const now = ctx.now();
  const recentBefore = new Date(now.getTime() - ctx.tracker.pollIntervalMs);
  return wakeCanaries(ctx.db, now, recentBefore, CANARIES_OLDEST, CANARIES_RECENT);
}
