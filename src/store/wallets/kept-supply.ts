// The supply split read from the kept balances (migrations 040 and 048,
// docs/adr/0022-balances-kept-per-connection.md): its cost does not grow with the number of
// outputs, unlike supply() (wallet-queries.ts), which sums every output (the reference the tests
// compare this read with). The spendable total is the sum of balance_total_parts (a row per
// connection, kept by the same triggers as the balances); the mint and burn addresses' kept
// balances split it; the burn outputs come from the partial index token_outputs_burns and the
// seized ones from seized_outputs. One statement: one snapshot, which sees a fold (its rows moved
// to backend 0) whole or not at all.
import type { Queryable } from '../db/db.js';
import { KEPT_BALANCES } from './address-balances.js';
import { SPENDABLE } from './spendable.js';
import type { Supply } from './wallet-queries.js';

/** The kept spendable total: the sum of every connection's row. */
const KEPT_TOTAL = '(SELECT coalesce(sum(total), 0) FROM balance_total_parts)';

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
    spendable: string;
    treasury: string;
    burn_held: string;
    burn_outputs: string;
    seized: string;
  }>(
    `WITH held AS (${KEPT_BALANCES})
     SELECT
       ${KEPT_TOTAL}::text AS spendable,
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
  /** The kept total: the sum of balance_total_parts. */
  readonly kept: bigint;
  /** The kept balances' sum: every row of address_balance_parts. */
  readonly summed: bigint;
}

/**
 * The kept total when it differs from the sum of the kept balances, else null (always null,
 * unless something wrote address_balance_parts or balance_total_parts around the triggers). Reads
 * every kept balance: for audits. With keptBalanceDrift empty, null means keptSupply's spendable
 * total is the spendable outputs' sum.
 */
export async function keptTotalDrift(q: Queryable): Promise<KeptTotalDrift | null> {
  const rows = await q.query<{ kept: string; summed: string }>(
    `SELECT ${KEPT_TOTAL}::text AS kept,
            (SELECT coalesce(sum(balance), 0) FROM address_balance_parts)::text AS summed`,
  );
  const row = rows[0];
  if (row === undefined) throw new Error('keptTotalDrift: no row');
  const kept = BigInt(row.kept);
  const summed = BigInt(row.summed);
  return kept === summed ? null : { kept, summed };
}
