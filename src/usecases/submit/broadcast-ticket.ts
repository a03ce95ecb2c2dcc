// Sends a ticket's final transaction to the ledger (always the same bytes for one ticket)
// and applies the answer. A ledger that cannot be reached leaves the ticket BROADCASTING for
// the tracker to try again. One at a time here (mint, burn, the v1 route); the api's transfers
// go through the broadcast queue (broadcast-queue.ts), which sends and applies them in batches
// with the same answers (verdictOf).
import { type BroadcastResult, LedgerUnavailableError } from '../../ledger/port.js';
import type { ServiceContext } from '../context.js';
import { applyLedgerStatuses, type LedgerUpdate } from '../track/apply-ledger-status.js';
import type { BroadcastOutcome } from './broadcast-port.js';

export type { BroadcastOutcome } from './broadcast-port.js';

/** What a broadcast's answer tells the caller, and what it writes (null: nothing to write). */
export function verdictOf(
  txid: string,
  result: BroadcastResult,
): { readonly outcome: BroadcastOutcome; readonly update: LedgerUpdate | null } {
  if (result.ok) {
    const update =
      result.status.kind === 'unknown'
        ? null
        : { txid, view: { status: result.status, fromBroadcast: true } };
    if (result.status.kind === 'rejected')
      return { outcome: { kind: 'rejected', reason: result.status.reason, arcCode: 0 }, update };
    return { outcome: { kind: 'accepted', status: result.status }, update };
  }
  if (result.retryable) return { outcome: { kind: 'unavailable', reason: result.reason }, update: null };
  const reason = `ledger refused the transaction (ARC ${result.arcCode}): ${result.reason}`;
  return {
    outcome: { kind: 'rejected', reason, arcCode: result.arcCode },
    update: { txid, view: { status: { kind: 'rejected', reason, arcCode: result.arcCode } } },
  };
}

export async function broadcastTicket(
  ctx: ServiceContext,
  txid: string,
  rawTx: Uint8Array,
): Promise<BroadcastOutcome> {
  let result: BroadcastResult;
  try {
    result = await ctx.ledger.broadcast(rawTx);
  } catch (err) {
    if (!(err instanceof LedgerUnavailableError)) throw err;
    ctx.log.warn({ txid, err: err.message }, 'ledger unavailable; the tracker will broadcast again');
    return { kind: 'unavailable', reason: err.message };
  }
  const { outcome, update } = verdictOf(txid, result);
  if (update !== null) await applyLedgerStatuses(ctx, [update]);
  return outcome;
}
