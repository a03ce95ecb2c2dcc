// What the writer believes of the ledger updates (broadcast answers) an api process sent it
// (docs/adr/0007-one-writer-per-deployment.md, "an internal hop trusts nothing it could check").
// An accepted broadcast (mempool) only moves a ticket to SUCCESS, which the tracker checks
// against the ledger on its next look: written as sent, its txid bounded, no tip height. A verdict
// that settles or unwinds money (mined, rejected, double-spend) is asked of the ledger again by
// the writer, and what the ledger says is written; a ledger that knows nothing of it, or cannot be
// reached, writes nothing (the tracker's own looks settle the ticket).
import type { Ledger, TxStatus } from '../ledger/port.js';
import type { LedgerUpdate } from '../usecases/track/apply-ledger-status.js';

const TXID = /^[0-9a-f]{64}$/;

export class UpdateRefused extends Error {}

/** The updates the writer writes for those sent; throws UpdateRefused for one out of bounds. */
export async function checkLedgerUpdates(
  updates: readonly LedgerUpdate[],
  ledger: Pick<Ledger, 'status'>,
): Promise<{ readonly write: LedgerUpdate[]; readonly askedAgain: number; readonly dropped: number }> {
  for (const [n, u] of updates.entries())
    if (!TXID.test(u.txid)) throw new UpdateRefused(`updates[${n}].txid: not a txid`);
  const write: LedgerUpdate[] = [];
  let askedAgain = 0;
  let dropped = 0;
  const asked = await Promise.all(
    updates.map(async (u): Promise<LedgerUpdate | null> => {
      const kind = u.view.status.kind;
      if (kind === 'unknown') return null;
      if (kind === 'mempool')
        return { txid: u.txid, view: { status: { kind: 'mempool' }, fromBroadcast: true } };
      askedAgain++;
      let status: TxStatus;
      try {
        status = await ledger.status(u.txid);
      } catch {
        return null;
      }
      if (status.kind === 'unknown') return null;
      return {
        txid: u.txid,
        view: { status, ...(u.view.fromBroadcast === true && { fromBroadcast: true }) },
      };
    }),
  );
  for (const u of asked) {
    if (u === null) dropped++;
    else write.push(u);
  }
  return { write, askedAgain, dropped };
}
