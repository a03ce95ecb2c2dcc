// SUCCESS tickets wait for a block (docs/adr/0008). A transaction leaves the mempool only for a
// block, so looking at a ticket in the mempool between two blocks learns nothing but the rare
// rejection or eviction (the mempool's backstop finds those). Two things make waiting tickets
// due sooner:
// - a block not seen before: the verdict batch whose insert created the block's row makes every
//   ticket then in the mempool due after a grace (the block's pushes settle theirs meanwhile, so
//   the sweep asks only about what they left), walking them a page at a time;
// - the canaries, each poll: a few waiting tickets made due now, so the tracker's sweep asks
//   about them and finds the blocks that nobody pushes (ARC without callbacks), which then wake
//   the rest.
import { FIRST_WAITING, wakeCanaries, wakeWaitingTickets } from '../store/tickets-waiting.js';
import type { ServiceContext } from './context.js';
import { blockGraceMs, CANARIES_OLDEST, CANARIES_RECENT, WAKE_PAGE } from './tracker-timing.js';

/**
 * After a verdict batch that first saw `blocks` committed: the tickets in the mempool are due
 * after the grace. Never throws: the verdicts are committed, and a ticket not woken is reached by
 * the next block, a canary or its backstop.
 */
export async function wakeForNewBlocks(ctx: ServiceContext, blocks: readonly string[]): Promise<number> {
  const seenAt = ctx.now();
  const dueAt = new Date(seenAt.getTime() + blockGraceMs(ctx.tracker));
  let woken = 0;
  try {
    for (let after = FIRST_WAITING; ; ) {
      const page = await wakeWaitingTickets(ctx.db, seenAt, dueAt, after, WAKE_PAGE);
      if (page === null) break;
      woken += page.woken;
      after = page.next;
    }
  } catch (err) {
    ctx.log.error({ err, blocks }, 'making the tickets in the mempool due after a new block failed');
  }
  return woken;
}

/** Makes this poll's canaries due now; returns how many. */
export async function wakeCanariesNow(ctx: ServiceContext): Promise<number> {
  const now = ctx.now();
  const recentBefore = new Date(now.getTime() - ctx.tracker.pollIntervalMs - blockGraceMs(ctx.tracker));
  return wakeCanaries(ctx.db, now, recentBefore, CANARIES_OLDEST, CANARIES_RECENT);
}
