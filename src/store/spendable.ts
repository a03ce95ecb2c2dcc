// What "spendable" means for a token output: no transaction spends it, no live ticket reserves
// it, and it is not a burn (`op = 'burn'` outputs are never spendable). The index
// token_outputs_spendable_by_owner has exactly this predicate (migration 011), and the balance
// triggers of migration 012 repeat it in SQL (store/address-balances.ts checks they agree).

/** The condition on a token_outputs row aliased `o`. */
export const SPENDABLE = "o.spent_by IS NULL AND o.reserved_by IS NULL AND o.op <> 'burn'";

/** Each owner's spendable sum, for the owners in $1 (index-only: migration 011). */
export const SPENDABLE_SUMS = `SELECT o.owner, sum(o.amount) AS total FROM token_outputs o
  WHERE o.owner = ANY($1::text[]) AND ${SPENDABLE}
  GROUP BY o.owner`;

/** Every owner's spendable sum (reads every output: for audits). */
export const SPENDABLE_SUMS_OF_ALL = `SELECT o.owner, sum(o.amount) AS total FROM token_outputs o
  WHERE ${SPENDABLE}
  GROUP BY o.owner`;
