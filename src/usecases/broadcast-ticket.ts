// Sends a ticket's final transaction to the ledger (always the same bytes for one ticket)
// and applies the answer. A ledger that cannot be reached leaves the ticket BROADCASTING for
// the tracker to try again.
import { LedgerUnavailableError, type TxStatus } from '../ledger/port.js';
import { applyLedgerStatus } from './apply-ledger-status.js';
import type { ServiceContext } from './context.js';

export type BroadcastOutcome =
  | { readonly kind: 'accepted'; readonly status: TxStatus }
  | { readonly kind: 'rejected'; readonly reason: string; readonly arcCode: number }
  | { readonly kind: 'unavailable'; readonly reason: string };

export async function broadcastTicket(
  ctx: ServiceContext,
  txid: string,
  rawTx: Uint8Array,
): Promise<BroadcastOutcome> {
  let result: Awaited<ReturnType<ServiceContext['ledger']['broadcast']>>;
  try {
    result = await ctx.ledger.broadcast(rawTx);
  } catch (err) {
    if (!(err instanceof LedgerUnavailableError)) throw err;
    ctx.log.warn({ txid, err: err.message }, 'ledger unavailable; the tracker will broadcast again');
    return { kind: 'unavailable', reason: err.message };
  }
  if (result.ok) {
    if (result.status.kind !== 'unknown')
      await applyLedgerStatus(ctx, txid, { status: result.status, fromBroadcast: true });
    if (result.status.kind === 'rejected')
      return { kind: 'rejected', reason: result.status.reason, arcCode: 0 };
    return { kind: 'accepted', status: result.status };
  }
  if (result.retryable) return { kind: 'unavailable', reason: result.reason };
  const reason = `ledger refused the transaction (ARC ${result.arcCode}): ${result.reason}`;
  await applyLedgerStatus(ctx, txid, { status: { kind: 'rejected', reason, arcCode: result.arcCode } });
  return { kind: 'rejected', reason, arcCode: result.arcCode };
}
