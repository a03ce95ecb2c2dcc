// The supply split read from the kept balances (migration 040,
// docs/adr/0004-balances-kept-per-address.md): its cost does not grow with the number of outputs,
// unlike supply() (wallet-queries.ts), which sums every output (the reference the tests compare
// this read with). The spendable total is kept_balance_total (the sum of address_balances, kept by
// triggers on it) plus the pending changes; the mint and burn addresses' kept balances split it;
// the burn outputs come from the partial index token_outputs_burns and the seized ones from
// seized_outputs. One statement: one snapshot, which sees a fold (its changes moved, its balances
// and the total written) whole or not at all.
import type { Queryable } from '../db/db.js';
import { KEPT_BALANCES } from './address-balances.js';
import { SPENDABLE } from './spendable.js';
import type { Supply } from './wallet-queries.js';

/** The pending changes' sum, added to a kept total to make it whole. */
const PENDING = '(SELECT coalesce(sum(amount), 0) FROM address_balance_changes)';

/**
 * Where the supply is, as supply() splits it: treasury is the mint address's kept balance (0 when
 * it is the burn address), burned the burn outputs plus the burn address's kept balance, seized
 * the spendable seized outputs of other owners, circulating the rest of the spendable total.
 */
export async function keptSupply(
  q: Queryable,
  token: { mintAddress: string; burnAddress: string },
): Promise<Supply> {
  const rows = await q.query<{
    spendable: string | null;
    treasury: string;
    burn_held: string;
    burn_outputs: string;
    seized: string;
  }>(
    `WITH held AS (${KEPT_BALANCES})
     SELECT
       ((SELECT total FROM kept_balance_total) + ${PENDING})::text AS spendable,
       (SELECT coalesce(sum(total), 0) FROM held WHERE owner = $2 AND owner <> $3)::text AS treasury,
       (SELECT coalesce(sum(total), 0) FROM held WHERE owner = $3)::text AS burn_held,
       (SELECT coalesce(sum(amount), 0) FROM token_outputs WHERE op = 'burn')::text AS burn_outputs,
       (SELECT coalesce(sum(o.amount), 0)
          FROM seized_outputs s JOIN token_outputs o ON o.txid = s.txid AND o.vout = s.vout
         WHERE ${SPENDABLE} AND o.owner <> $2 AND o.owner <> $3)::text AS seized`,
    [[token.mintAddress, token.burnAddress], token.mintAddress, token.burnAddress],
  );
  const row = rows[0];
  if (row === undefined) throw new Error('keptSupply: no row');
  if (row.spendable === null)
    throw new Error('keptSupply: kept_balance_total has no row (see migration 040)');
  const spendable = BigInt(row.spendable);
  const treasury = BigInt(row.treasury);
  const burnHeld = BigInt(row.burn_held);
  const seized = BigInt(row.seized);
  return {
    circulating: spendable - treasury - burnHeld - seized,
    seized,
    treasury,
    burned: BigInt(row.burn_outputs) + burnHeld,
  };
}

export interface KeptTotalDrift {
  /** kept_balance_total plus the pending changes (null: its row is missing). */
  readonly kept: bigint | null;
  /** The kept balances' sum: address_balances plus the pending changes. */
  readonly summed: bigint;
}

/**
 * The kept total when it differs from the sum of the kept balances, else null (always null,
 * unless something wrote address_balances or kept_balance_total around the triggers). Reads every
 * kept balance: for audits. With keptBalanceDrift empty, null means keptSupply's spendable total
 * is the spendable outputs' sum.
 */
export async function keptTotalDrift(q: Queryable): Promise<KeptTotalDrift | null> {
  const rows = await q.query<{ kept: string | null; summed: string }>(
    `SELECT ((SELECT total FROM kept_balance_total) + ${PENDING})::text AS kept,
            ((SELECT coalesce(sum(balance), 0) FROM address_balances) + ${PENDING})::text AS summed`,
  );
  const row = rows[0];
  if (row === undefined) throw new Error('keptTotalDrift: no row');
  const kept = row.kept === null ? null : BigInt(row.kept);
  const summed = BigInt(row.summed);
  return kept === summed ? null : { kept, summed };
}
