// Balances kept per address (migration 012, docs/adr/0004-balances-kept-per-address.md).
// Triggers on token_outputs append what each statement changed of an owner's spendable sum to
// address_balance_changes; a fold moves those changes into address_balances. A balance is the
// owner's row plus its pending changes, read in one statement (one snapshot: a fold is seen
// whole or not at all), so it never depends on how many outputs the owner holds.
import { NO_PARAMETERS, type Queryable } from '../db/db.js';
import { SPENDABLE_SUMS_OF_ALL } from './spendable.js';

/** Advisory lock key of a fold: one at a time across instances, the others skip their turn. */
export const BALANCE_FOLD_LOCK_KEY = 7_364_821_004;

/** Kept balances, grouped by owner, of the rows that `where` (applied to both tables) keeps. */
const keptBalancesWhere = (where: string) => `SELECT owner, sum(amount) AS total FROM (
    SELECT owner, balance AS amount FROM address_balances ${where}
    UNION ALL
    SELECT owner, amount FROM address_balance_changes ${where}) kept
  GROUP BY owner`;

/** Each kept balance of the owners in $1 (owners never seen are absent). */
export const KEPT_BALANCES = keptBalancesWhere('WHERE owner = ANY($1::text[])');

const KEPT_BALANCES_OF_ALL = keptBalancesWhere('');

/**
 * Moves every pending change into address_balances in one statement, unless another fold holds
 * the turn (then nothing is moved). Owners are written in order, and only folds write
 * address_balances, one at a time: no lock cycle. Returns the changes moved.
 */
export async function foldBalanceChanges(q: Queryable): Promise<number> {
  const rows = await q.query<{ changes: string }>(
    `WITH turn AS (SELECT pg_try_advisory_xact_lock(${BALANCE_FOLD_LOCK_KEY}) AS mine),
     moved AS (DELETE FROM address_balance_changes WHERE (SELECT mine FROM turn) RETURNING owner, amount),
     written AS (
       INSERT INTO address_balances (owner, balance)
       SELECT owner, sum(amount) FROM moved GROUP BY owner ORDER BY owner
       ON CONFLICT (owner) DO UPDATE SET balance = address_balances.balance + excluded.balance)
     SELECT count(*)::text AS changes FROM moved`,
  );
  return Number(rows[0]?.changes ?? 0);
}

/** Whether any change waits to be folded (a read: it writes nothing). */
export async function balanceChangesPending(q: Queryable): Promise<boolean> {
  const rows = await q.query<{ pending: boolean }>(
    'SELECT EXISTS (SELECT 1 FROM address_balance_changes) AS pending',
    NO_PARAMETERS,
  );
  return rows[0]?.pending === true;
}

export interface BalanceDrift {
  readonly address: string;
  /** The kept balance (address_balances plus pending changes). */
  readonly kept: bigint;
  /** The sum of the address's spendable outputs. */
  readonly summed: bigint;
}

/**
 * Addresses whose kept balance differs from the sum of their spendable outputs, in address
 * order (none, unless something wrote around the triggers). Reads every output: for audits.
 */
export async function keptBalanceDrift(q: Queryable): Promise<BalanceDrift[]> {
  const rows = await q.query<{ address: string; kept: string; summed: string }>(
    `SELECT coalesce(k.owner, s.owner) AS address,
            coalesce(k.total, 0)::text AS kept, coalesce(s.total, 0)::text AS summed
       FROM (${KEPT_BALANCES_OF_ALL}) k FULL JOIN (${SPENDABLE_SUMS_OF_ALL}) s ON s.owner = k.owner
      WHERE coalesce(k.total, 0) <> coalesce(s.total, 0)
      ORDER BY 1`,
  );
  return rows.map((r) => ({ address: r.address, kept: BigInt(r.kept), summed: BigInt(r.summed) }));
}
