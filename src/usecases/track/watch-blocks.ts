// The tracker's block sweep (docs/adr/0006): MINED tickets that are not final are watched for
// reorgs through their block, one look a poll per block however many tickets it holds. A block
// row is claimed with a lease (several trackers share the work), and its probe transaction is
// asked about:
// - still mined in the block, not final: only the row moves to the next poll;
// - still mined in the block, final: the block's tickets are settled (those whose record still
//   names it once they are locked), the row goes;
// - anything else (the block left the chain): one statement makes the block's tickets due now,
//   and the ticket sweep asks each of them on its own (track-tickets.ts); the row goes;
// - the ledger failed: the row backs off, as a ticket does.
// A block's first look (a successful one) also has the tickets in the mempool asked about
// (docs/adr/0008, wait-for-blocks.ts).
// The tickets' writes and the rows' are separate transactions (store/tickets/watched-blocks.ts
// says why).
import { LedgerUnavailableError, type TxStatus } from '../../ledger/port.js';
import {
  backOffBlocks,
  claimDueBlocks,
  type DueBlock,
  forgetBlocks,
  keepWatchingBlocks,
  markMempoolAsked,
  recheckTicketsIn,
  settleTicketsIn,
} from '../../store/tickets/watched-blocks.js';
import type { ServiceContext } from '../context.js';
import { type ApplyUpdates, applyDirectly } from './look-at-tickets.js';
import {
  eachAtMost,
  isFinal,
  LOOKS_AT_ONCE,
  leaseEnd,
  lookTimes,
  retryDelayMs,
  SWEEP_LIMIT,
  tipHeightNow,
} from './tracker-timing.js';
import { lookAtTheMempool } from './wait-for-blocks.js';

/**
 * Looks at up to `limit` due blocks once; returns how many it claimed. What looks at the
 * mempool's tickets after a new block learn goes through `apply`.
 */
export async function watchDueBlocks(
  ctx: ServiceContext,
  limit = SWEEP_LIMIT,
  apply: ApplyUpdates = applyDirectly(ctx),
): Promise<number> {
  const now = ctx.now();
  const due = await claimDueBlocks(ctx.db, now, leaseEnd(now), limit);
  if (due.length === 0) return 0;
  const tipHeight = await tipHeightNow(ctx.ledger);
  const standing: string[] = [];
  const final: string[] = [];
  const left: string[] = [];
  const failed: DueBlock[] = [];
  await eachAtMost(LOOKS_AT_ONCE, due, async (block) => {
    let status: TxStatus;
    try {
      status = await ctx.ledger.status(block.probeTxid);
    } catch (err) {
      failed.push(block);
      if (!(err instanceof LedgerUnavailableError))
        ctx.log.error({ block: block.hash, err }, 'watching a block failed');
      return;
    }
    if (status.kind === 'mined' && status.blockHash === block.hash) {
      (isFinal(ctx.tracker, tipHeight, status.height) ? final : standing).push(block.hash);
    } else {
      ctx.log.info(
        { block: block.hash, height: block.height, probe: block.probeTxid },
        'a watched block left the chain',
      );
      left.push(block.hash);
    }
  });

  const at = ctx.now();
  try {
    // The tickets first, then the rows: should the process stop in between, the block is
    // looked at again once its lease runs out.
    await settleTicketsIn(ctx.db, final);
    await recheckTicketsIn(ctx.db, left, at);
    await forgetBlocks(ctx.db, [...final, ...left]);
    await keepWatchingBlocks(ctx.db, standing, lookTimes(ctx.tracker, at).poll);
  } catch (err) {
    ctx.log.error(
      { err },
      'writing what the block sweep learnt failed; the blocks are looked at again after their lease',
    );
  }
  try {
    await backOffBlocks(
      ctx.db,
      failed.map((b) => ({ hash: b.hash, at: new Date(at.getTime() + retryDelayMs(b.failures)) })),
    );
  } catch (err) {
    ctx.log.error({ err }, 'rescheduling blocks after failed looks failed; their lease runs out');
  }
  // A block looked at for the first time: the tickets still in the mempool are looked at now
  // (docs/adr/0008), after the blocks' own writes, which a long walk would otherwise hold up
  // past their lease. The blocks are marked first: a walk that a crash or a lapsed lease cuts
  // short is not walked again by another tracker; what it did not reach, a canary or the
  // backstop does.
  const firstSeen = due.filter((b) => b.seenAt !== null && !failed.includes(b));
  if (firstSeen.length > 0) {
    try {
      await markMempoolAsked(
        ctx.db,
        firstSeen.map((b) => b.hash),
      );
      await lookAtTheMempool(ctx, new Date(Math.max(...firstSeen.map((b) => b.seenAt!.getTime()))), apply);
    } catch (err) {
      ctx.log.error({ err }, 'marking new blocks failed; the mempool is asked about at their next look');
    }
  }
  return due.length;
}
