// What "spendable" means for a token output: no transaction spends it, no ticket reserves it,
// and it is not a burn (`op = 'burn'` outputs are never spendable). Every write that reserves an
// output spends it too (and reserved_by stays set once the network took the spender, ADR 0019), so
// the reserved_by test excludes nothing that spent_by does not. The index
// token_outputs_spendable_by_owner has this predicate but reserved_by (migration 039), and the balance
// triggers of migration 012 repeat it in SQL (the audit's keptBalanceDrift, in
// store/wallets/address-balances.ts, compares the two).

/** The condition on a token_outputs row aliased `o`. */
export const SPENDABLE = "o.spent_by IS NULL AND o.reserved_by IS NULL AND o.op <> 'burn'";

/** Every owner's spendable sum (reads every output: for audits). */
export const SPENDABLE_SUMS_OF_ALL = `SELECT o.owner, sum(o.amount) AS total FROM token_outputs o
  WHERE ${SPENDABLE}
  GROUP BY o.owner`;
