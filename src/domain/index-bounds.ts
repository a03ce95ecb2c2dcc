// The largest values the index's integer columns hold, which inputs are checked against before
// they reach a query (past them PostgreSQL refuses the cast, a 500): a change-feed score is a
// bigint, a token output's index (vout) a 32-bit signed integer.

/** The largest score: a bigint column's largest value. */
export const MAX_SCORE = 2n ** 63n - 1n;

/** The largest output index a token output is stored with. */
export const MAX_VOUT = 0x7fff_ffff;
