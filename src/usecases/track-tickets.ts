// The tracker role: follows every live ticket to its end. Ledger pushes (subscribe) are the
// fast path; this sweep is the guarantee. Tickets are claimed with a lease through
// FOR UPDATE SKIP LOCKED, so several trackers share the work without doing any twice.
import type { TicketStatus } from '../domain/ticket-state.js';
import { LedgerUnavailableError } from '../ledger/port.js';
import { applyLedgerStatus } from './apply-ledger-status.js';
import { broadcastTicket } from './broadcast-ticket.js';
import type { ServiceContext } from './context.js';

interface DueTicket {
  id: string;
  txid: string;
  raw_tx: Uint8Array;
  status: TicketStatus;
  attempts: number;
  /** Failed looks in a row (reset by any status written). */
  failures: number;
}

const LEASE_MS = 30_000;
const MAX_BACKOFF_MS = 60_000;

/** Looks at up to `limit` due tickets once; returns how many it claimed. */
export async function trackDueTickets(ctx: ServiceContext, limit = 50): Promise<number> {
  const now = ctx.now();
  const due = await ctx.db.query<DueTicket & Record<string, unknown>>(
    `UPDATE tickets SET lease_until = $2, attempts = attempts + 1
      WHERE id IN (SELECT id FROM tickets
                    WHERE next_check_at <= $1 AND (lease_until IS NULL OR lease_until < $1)
                    ORDER BY next_check_at LIMIT $3 FOR UPDATE SKIP LOCKED)
      RETURNING id, txid, raw_tx, status, attempts, failures`,
    [now, new Date(now.getTime() + LEASE_MS), limit],
  );
  if (due.length === 0) return 0;
  let tipHeight: number | undefined;
  try {
    tipHeight = (await ctx.ledger.tip()).height;
  } catch {
    tipHeight = undefined;
  }
  for (const ticket of due) {
    try {
      await trackOne(ctx, ticket, tipHeight);
    } catch (err) {
      await rescheduleAfterFailure(ctx, ticket);
      if (!(err instanceof LedgerUnavailableError))
        ctx.log.error({ ticketId: ticket.id, err }, 'tracking failed');
    }
  }
  return due.length;
}

async function trackOne(
  ctx: ServiceContext,
  ticket: DueTicket,
  tipHeight: number | undefined,
): Promise<void> {
  const status = await ctx.ledger.status(ticket.txid);
  if (status.kind === 'unknown') {
    // Never reached the ledger, or dropped by it (a reorg, a restart): send the same bytes again.
    const outcome = await broadcastTicket(ctx, ticket.txid, ticket.raw_tx);
    if (outcome.kind === 'unavailable') {
      await rescheduleAfterFailure(ctx, ticket);
    }
    return;
  }
  await applyLedgerStatus(ctx, ticket.txid, tipHeight === undefined ? { status } : { status, tipHeight });
}

/** 1 s after the first failure in a row, doubling up to a minute. */
export function retryDelayMs(failuresInARow: number): number {
  return Math.min(1000 * 2 ** Math.min(failuresInARow, 10), MAX_BACKOFF_MS);
}

async function rescheduleAfterFailure(ctx: ServiceContext, ticket: DueTicket): Promise<void> {
  await ctx.db.query(
    `UPDATE tickets SET next_check_at = $2, lease_until = NULL, failures = failures + 1
      WHERE id = $1 AND next_check_at IS NOT NULL`,
    [ticket.id, new Date(ctx.now().getTime() + retryDelayMs(ticket.failures))],
  );
}

/** Runs the sweep until stopped; ledger pushes are applied, in order, as they come. */
export function startTracker(ctx: ServiceContext, intervalMs = 500): { stop(): Promise<void> } {
  let stopped = false;
  let pushes: Promise<void> = Promise.resolve();
  const unsubscribe = ctx.ledger.subscribe((txid, status) => {
    pushes = pushes
      .then(() => applyLedgerStatus(ctx, txid, { status }))
      .catch((err) => ctx.log.error({ txid, err }, 'applying a ledger push failed'));
  });
  const sweepUntilStopped = async () => {
    while (!stopped) {
      try {
        while (!stopped && (await trackDueTickets(ctx)) > 0) {
          // drain what is due before sleeping
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
      await pushes;
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
