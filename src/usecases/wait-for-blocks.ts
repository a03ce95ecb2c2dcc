// SUCCESS tickets wait for a block (docs/adr/0008). A transaction leaves the mempool only for a
// block, so looking at a ticket in the mempool between two blocks learns nothing but the rare
// rejection or eviction (the mempool's backstop finds those). Two things make waiting tickets
// due sooner:
// - a block not seen before: at the block sweep's first look at its row, a poll after a verdict
//   first showed it (the block's pushes have settled their tickets by then), every ticket still
//   in the mempool and submitted before the block was seen is made due, a page at a time;
// - the canaries, once a poll: a few waiting tickets made due now, so the tracker's sweep asks
//   about them and finds the blocks that nobody pushes (ARC without callbacks), whose first look
//   then wakes the rest.
import { FIRST_WAITING, wakeCanaries, wakeWaitingTickets } from '../store/tickets-waiting.js';
import type { ServiceContext } from './context.js';
import { CANARIES_OLDEST, CANARIES_RECENT, WAKE_PAGE } from './tracker-timing.js';

/**
 * The tickets in the mempool submitted by `submittedBy` (when the newest of the blocks being
 * looked at for the first time was seen) are due now. Never throws: a ticket not woken is
 * reached by the next block, a canary or its backstop. Returns how many it woke.
 */
export async function wakeForNewBlocks(ctx: ServiceContext, submittedBy: Date): Promise<number> {
  const now = ctx.now();
  let woken = 0;
  try {
    for (let after = FIRST_WAITING; ; ) {
      const page = await wakeWaitingTickets(ctx.db, submittedBy, now, after, WAKE_PAGE);
      if (page === null) break;
      woken += page.woken;
      after = page.next;
    }
  } catch (err) {
    ctx.log.error({ err }, 'making the tickets in the mempool due after a new block failed');
  }
  return woken;
}

/** Makes this poll's canaries due now; returns how many. */
export async function wakeCanariesNow(ctx: ServiceContext): Promise<number> {
  const now = ctx.now();
  const recentBefore = new Date(now.getTime() - ctx.tracker.pollIntervalMs);
  return wakeCanaries(ctx.db, now, recentBefore, CANARIES_OLDEST, CANARIES_RECENT);
}
