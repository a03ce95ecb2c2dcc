// Whether a transaction kept before it was submitted (a seizure's reissue, a mint or burn under an
// Idempotency-Key or a proposal) can never be committed, so that another may take its place.
// Judged from the kept bytes themselves, never from what a caller says its inputs are.
import { txidOf } from '../../crypto/txid.js';
import { spentOutpoints } from '../../domain/spent-outpoints.js';
import { liveReservation } from '../wallets/wallet-queries.js';

/**
 * SQL, over three parameters from `$first` on (neverCommittableParameters), true when no ticket
 * holds the transaction and one of its inputs is gone or spent by a transaction the network took.
 * A spender still BROADCASTING may yet fail and free the input: until the network answers, a
 * process that read the kept bytes could still commit them, and the value would move twice.
 */
export function neverCommittable(first: number): string {
  const [txid, txids, vouts] = [first, first + 1, first + 2].map((n) => `$${n}`);
  return `NOT EXISTS (SELECT 1 FROM tickets WHERE submitted_txid = ${txid})
      AND EXISTS (SELECT 1 FROM unnest(${txids}::text[], ${vouts}::int[]) AS u(txid, vout)
                    LEFT JOIN token_outputs o ON o.txid = u.txid AND o.vout = u.vout
                   WHERE o.txid IS NULL
                      OR (o.spent_by IS NOT NULL AND ${liveReservation('o')} IS NULL))`;
}

/** The parameters of neverCommittable for the kept transaction `raw`. */
export function neverCommittableParameters(raw: Uint8Array): [string, string[], number[]] {
  const inputs = spentOutpoints(raw) ?? [];
  return [txidOf(raw), inputs.map((i) => i.txid), inputs.map((i) => i.vout)];
}
