// What a ledger verdict on a transaction does to its ticket and to the index, in one database
// transaction: accepted (SUCCESS), mined (MINED, block data into the change feed), reorged out
// (back to SUCCESS), rejected (FAILED: inputs released, and every ticket that spends the
// failed transaction's outputs fails with it).
import type { Ticket } from '../domain/ticket.js';
import type { TicketTransition } from '../domain/ticket-transition.js';
import type { TxStatus } from '../ledger/port.js';
import type { Queryable } from '../store/db.js';
import { markFailed, markMined, markUnmined, releaseReservations, spendersOf } from '../store/feed-writes.js';
import { moveTicket, ticketByTxidForUpdate } from '../store/ticket-writes.js';
import type { ServiceContext } from './context.js';
import { reportTransitions } from './report-transitions.js';

export interface LedgerView {
  readonly status: TxStatus;
  /** Chain tip height when known (decides when a mined ticket stops being watched). */
  readonly tipHeight?: number;
  /**
   * A broadcast's answer: it may be older than what the store holds (the tracker can record the
   * block while the answer is on its way), so its `mempool` never takes a MINED ticket back.
   * Reorgs are the tracker's to see, from a status it asked for.
   */
  readonly fromBroadcast?: boolean;
}

export async function applyLedgerStatus(ctx: ServiceContext, txid: string, view: LedgerView): Promise<void> {
  const journal: TicketTransition[] = [];
  await ctx.db.transaction(async (tx) => {
    journal.length = 0;
    const ticket = await ticketByTxidForUpdate(tx, txid);
    if (ticket === null || ticket.status === 'FAILED') return;
    await applyToTicket(ctx, tx, ticket, view, journal);
  });
  reportTransitions(ctx, journal);
}

/** Applies `view` inside the caller's transaction; the caller reports `journal` after commit. */
export async function applyToTicket(
  ctx: ServiceContext,
  tx: Queryable,
  ticket: Ticket,
  view: LedgerView,
  journal: TicketTransition[] = [],
): Promise<void> {
  const now = ctx.now();
  const poll = new Date(now.getTime() + ctx.tracker.pollIntervalMs);
  const { status } = view;
  switch (status.kind) {
    case 'mempool': {
      if (ticket.status === 'MINED' && view.fromBroadcast === true) return;
      if (ticket.status === 'BROADCASTING') await releaseReservations(tx, ticket.id);
      if (ticket.status === 'MINED') await markUnmined(tx, ticket.txid, now);
      await moveTicket(tx, ticket, 'SUCCESS', { now, nextCheckAt: poll }, journal);
      return;
    }
    case 'mined': {
      if (ticket.status === 'BROADCASTING') await releaseReservations(tx, ticket.id);
      const block = {
        height: status.height,
        idx: status.index,
        hash: status.blockHash,
        time: status.blockTime,
      };
      await markMined(tx, ticket.txid, block, now);
      const depth = view.tipHeight === undefined ? 0 : view.tipHeight - status.height + 1;
      const final = depth >= ctx.tracker.finalConfirmations;
      await moveTicket(tx, ticket, 'MINED', { now, nextCheckAt: final ? null : poll }, journal);
      return;
    }
    case 'rejected':
      await failTicket(ctx, tx, ticket, status.reason, journal);
      return;
    case 'double-spend':
    case 'unknown':
      await moveTicket(tx, ticket, ticket.status, { now, nextCheckAt: poll });
      return;
  }
}

/** FAILED, releasing inputs and funding; first fails every live ticket spending its outputs. */
export async function failTicket(
  ctx: ServiceContext,
  tx: Queryable,
  ticket: Ticket,
  reason: string,
  journal: TicketTransition[] = [],
): Promise<void> {
  for (const spender of await spendersOf(tx, ticket.txid)) {
    const child = await ticketByTxidForUpdate(tx, spender);
    if (child !== null && child.status !== 'FAILED') {
      await failTicket(
        ctx,
        tx,
        child,
        `an input comes from transaction ${ticket.txid}, which failed: ${reason}`,
        journal,
      );
    }
  }
  const now = ctx.now();
  await markFailed(tx, ticket.id, ticket.txid, now);
  await moveTicket(tx, ticket, 'FAILED', { now, nextCheckAt: null, errors: reason }, journal);
}
