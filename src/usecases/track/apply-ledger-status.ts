// What ledger verdicts do to tickets and to the index, many in ONE database transaction with
// set-based statements: accepted (SUCCESS), mined (MINED, block data into the change feed),
// reorged out (back to SUCCESS), rejected (FAILED: inputs released, and every ticket, or record
// without one, that spends the failed transaction's outputs fails with it). Per ticket the
// result is what applying its verdicts one by one, in order, gives (verdict-plan.ts walks them).
//
// Statement order (docs/adr/0001, 0020): find the spenders of rejected transactions; lock the tickets
// (id order), then the records a plan may touch (txid order), then the address rows the scores
// go into; write what carries no score (reservations, unwinding failed transactions, tickets,
// the blocks that MINED tickets are now looked at through (docs/adr/0006), callback events);
// take the writer's marker, draw one score per changed record and write the scored rows,
// all in one statement; commit. Nothing after the draw waits for a row lock. (A block's row
// inserted here is also how a new block is noticed: its first look has the tracker ask about
// the tickets in the mempool, docs/adr/0008.)

import { ticketJson } from '../../domain/ticket.js';
import type { TicketTransition } from '../../domain/ticket-transition.js';
import type { Queryable } from '../../store/db/db.js';
import { SqlState, sqlStateOf } from '../../store/db/sql-error.js';
import {
  lockDependents,
  lockRecords,
  type RecordChange,
  releaseReservations,
  spenderClosure,
  unwindFailed,
  writeScoredRecords,
} from '../../store/feed/feed-writes.js';
import {
  appendTicketEvents,
  type LockedTicket,
  type LookAgain,
  lockTicketsByTxid,
  type TicketWrite,
  writeTickets,
} from '../../store/tickets/ticket-writes.js';
import { type BlockToWatch, watchBlocks } from '../../store/tickets/watched-blocks.js';
import type { ServiceContext } from '../context.js';
import { reportTransitions } from '../report-transitions.js';
import { lookTimes } from './tracker-timing.js';
import {
  failAfter,
  type LedgerView,
  mayTouchRecord,
  planVerdicts,
  type VerdictPlan,
} from './verdict-plan.js';

export type { LedgerView } from './verdict-plan.js';

export interface LedgerUpdate {
  readonly txid: string;
  readonly view: LedgerView;
}

/** A deadlock with another writer (PostgreSQL aborts one of the two) is tried again, this often. */
const ATTEMPTS = 3;

/** Applies one verdict: a batch of one. */
export async function applyLedgerStatus(ctx: ServiceContext, txid: string, view: LedgerView): Promise<void> {
  await applyLedgerStatuses(ctx, [{ txid, view }]);
}

/**
 * Applies `updates` in one database transaction (several for one txid: in the order given), then
 * reports the committed transitions. Txids without a ticket, and FAILED tickets, are left alone.
 */
export async function applyLedgerStatuses(
  ctx: ServiceContext,
  updates: readonly LedgerUpdate[],
): Promise<void> {
  if (updates.length === 0) return;
  for (let attempt = 1; ; attempt++) {
    try {
      const journal = await ctx.db.transaction((tx) => applyInTransaction(ctx, tx, updates));
      reportTransitions(ctx, journal);
      return;
    } catch (err) {
      const state = sqlStateOf(err);
      const retry = state === SqlState.DEADLOCK_DETECTED || state === SqlState.SERIALIZATION_FAILURE;
      if (!retry || attempt >= ATTEMPTS) throw err;
    }
  }
}

async function applyInTransaction(
  ctx: ServiceContext,
  tx: Queryable,
  updates: readonly LedgerUpdate[],
): Promise<TicketTransition[]> {
  const now = ctx.now();
  const viewsOf = new Map<string, LedgerView[]>();
  for (const { txid, view } of updates) {
    const views = viewsOf.get(txid);
    if (views === undefined) viewsOf.set(txid, [view]);
    else views.push(view);
  }
  const rejected = [...viewsOf].filter(([, vs]) => vs.some((v) => v.status.kind === 'rejected'));
  const edges = await spenderClosure(
    tx,
    rejected.map(([txid]) => txid),
  );
  const locked = await lockTicketsByTxid(tx, [...new Set([...viewsOf.keys(), ...edges.map((e) => e.txid)])]);
  const byTxid = new Map(locked.map((l) => [l.ticket.txid, l]));
  const live = locked.filter((l) => l.ticket.status !== 'FAILED');
  // Records are locked only where a plan may read or change them (a block, a rejection, a
  // reorg, a spender failing with its parent): a batch of broadcast answers locks none. A
  // spender without a ticket (a record the reconcile ingested) fails with its parent too.
  const spenders = new Set(edges.map((e) => e.txid));
  const recordsNeeded = live.filter(
    (l) => spenders.has(l.ticket.txid) || mayTouchRecord(l.ticket.status, viewsOf.get(l.ticket.txid) ?? []),
  );
  const ticketlessSpenders = [...spenders].filter((txid) => !byTxid.has(txid));
  const records = new Map(
    (await lockRecords(tx, [...recordsNeeded.map((l) => l.ticket.txid), ...ticketlessSpenders])).map((r) => [
      r.txid,
      r,
    ]),
  );
  /** The record of a spender without a ticket, unless it failed already. */
  const ticketless = (txid: string) => {
    const record = byTxid.has(txid) ? undefined : records.get(txid);
    return record === undefined || record.state === 'failed' ? undefined : record;
  };
  const planOf = (l: LockedTicket, views: readonly LedgerView[]) => {
    const record = records.get(l.ticket.txid);
    return planVerdicts(
      {
        status: l.ticket.status,
        firstMined: l.firstMinedAt === null,
        record: record === undefined ? null : { state: record.state, blkHash: record.blk_hash },
      },
      views,
      ctx.tracker.finalConfirmations,
    );
  };

  const plans = new Map<string, VerdictPlan>();
  for (const [txid, views] of viewsOf) {
    const l = byTxid.get(txid);
    if (l !== undefined && l.ticket.status !== 'FAILED') plans.set(txid, planOf(l, views));
  }
  // A failed transaction fails every live ticket spending its outputs, their spenders too.
  const childrenOf = new Map<string, string[]>();
  for (const e of edges) childrenOf.set(e.parent, [...(childrenOf.get(e.parent) ?? []), e.txid]);
  const failOrder: string[] = [];
  const reached = new Set<string>();
  const cascade = (txid: string, reason: string) => {
    if (reached.has(txid)) return;
    reached.add(txid);
    for (const child of childrenOf.get(txid) ?? []) {
      if (reached.has(child)) continue;
      const why = `an input comes from transaction ${txid}, which failed: ${reason}`;
      const l = byTxid.get(child);
      if (l === undefined) {
        if (ticketless(child) !== undefined) cascade(child, why);
        continue;
      }
      if (l.ticket.status === 'FAILED') continue;
      const plan = failAfter(plans.get(child) ?? planOf(l, []), why);
      plans.set(child, plan);
      cascade(child, plan.failure!);
    }
    failOrder.push(txid);
  };
  // A MINED spender is in a block, and so, on one chain, is every transaction it spends from: a
  // failure that would reach one contradicts a block's proof (a stale push, a block that left the
  // chain and has not been looked at yet). No ticket fails then; the failing one is looked at
  // again at the next poll, and the MINED one is failed only by a look at it (docs/contract.md).
  // A spender without a ticket is in a block when its record says so.
  const inBlock = (txid: string) =>
    byTxid.get(txid)?.ticket.status === 'MINED' || ticketless(txid)?.state === 'mined';
  const reachesMined = (txid: string, seen = new Set<string>()): boolean =>
    (childrenOf.get(txid) ?? []).some((child) => {
      if (seen.has(child)) return false;
      seen.add(child);
      return inBlock(child) || reachesMined(child, seen);
    });
  for (const [txid, plan] of [...plans]) {
    if (plan.failure === null) continue;
    if (!reachesMined(txid)) {
      cascade(txid, plan.failure);
      continue;
    }
    const views = (viewsOf.get(txid) ?? []).filter((v) => v.status.kind !== 'rejected');
    plans.set(txid, {
      ...planOf(byTxid.get(txid)!, views),
      touched: true,
      watch: true,
      waitsForBlock: false,
    });
    ctx.log.warn(
      { txid, reason: plan.failure },
      'a rejection would fail a transfer in a block that spends from this one: looked at again instead',
    );
  }

  const changes: RecordChange[] = [];
  const failed: { ticketId: string | null; txid: string }[] = [];
  const released: string[] = [];
  const writes: TicketWrite[] = [];
  const events: { ticketId: string; payload: ReturnType<typeof ticketJson> }[] = [];
  const journal: TicketTransition[] = [];
  const blocks: BlockToWatch[] = [];
  const ordered = [...[...plans.keys()].filter((txid) => plans.get(txid)!.failure === null), ...failOrder];
  for (const txid of ordered) {
    if (!byTxid.has(txid)) {
      // A spender without a ticket: only its record and its outputs fail.
      failed.push({ ticketId: null, txid });
      changes.push({ txid, kind: 'failed' });
      continue;
    }
    const plan = plans.get(txid)!;
    const { ticket, rawTx, firstMinedAt } = byTxid.get(txid)!;
    // A failing ticket's reservations go before its unwinding (a funding output the network
    // took stays spent); the others' go with the tickets' write.
    if (plan.release && plan.failure !== null) released.push(ticket.id);
    if (plan.failure !== null) {
      failed.push({ ticketId: ticket.id, txid });
      if (records.has(txid)) changes.push({ txid, kind: 'failed' });
    } else if (plan.record !== null) {
      changes.push({ txid, ...plan.record });
    }
    if (!plan.touched) continue;
    if (plan.minedIn !== null) blocks.push({ ...plan.minedIn, probeTxid: txid });
    writes.push({
      id: ticket.id,
      status: plan.status,
      moved: plan.steps.length > 0,
      errors: plan.failure,
      lookAgain: lookAgainAfter(plan),
      firstMined: firstMinedAt === null && plan.steps.some((s) => s.to === 'MINED'),
    });
    for (const step of plan.steps) {
      const reason = step.to === 'FAILED' ? plan.failure : null;
      if (ticket.callbackUrl !== null) {
        // Read for exactly the tickets with a callback URL (lockTicketsByTxid): never skip an event.
        if (rawTx === null)
          throw new Error(`ticket ${ticket.id}: its transaction was not read for its events`);
        events.push({
          ticketId: ticket.id,
          payload: ticketJson({ ...ticket, rawTx, status: step.to, updatedAt: now, errors: reason }),
        });
      }
      journal.push({
        ticketId: ticket.id,
        txid,
        from: step.from,
        to: step.to,
        reason,
        submittedAt: ticket.createdAt,
        at: now,
        first: step.first,
        requestId: ticket.requestId,
      });
    }
  }

  await lockDependents(
    tx,
    changes.map((c) => c.txid),
  );
  await releaseReservations(tx, released);
  await unwindFailed(tx, failed);
  const looks = lookTimes(ctx.tracker, now);
  await writeTickets(tx, writes, now, looks);
  // Before the draw: a writer waiting here on another's insert of the same block holds no marker
  // yet, so it holds no reader's feed bound back while it waits.
  await watchBlocks(tx, blocks, looks.poll, now);
  await appendTicketEvents(tx, events, now);
  await writeScoredRecords(tx, changes, now);
  return journal;
}

function lookAgainAfter(plan: VerdictPlan): LookAgain {
  if (plan.minedIn !== null && plan.watch) return 'backstop';
  if (plan.waitsForBlock) return 'block';
  return plan.watch ? 'poll' : 'never';
}
