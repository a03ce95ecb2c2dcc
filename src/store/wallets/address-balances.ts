// Balances kept per address, a row per owner and database connection (migration 048,
// docs/adr/0022-balances-kept-per-connection.md). Triggers on token_outputs add what each
// statement changed of an owner's spendable sum to the writing connection's row of
// address_balance_parts; a balance is the sum of the owner's rows, read in one statement, so it
// never depends on how many outputs the owner holds. Rows of connections that have ended are
// folded into backend 0, so an owner keeps a row per live connection that changed its balance.
import { NO_PARAMETERS, type Queryable } from '../db/db.js';
import { SPENDABLE_SUMS_OF_ALL } from './spendable.js';

/** Advisory lock key of a fold: one at a time across instances, the others skip their turn. */
export const BALANCE_FOLD_LOCK_KEY = 7_364_821_004;

/** Kept balances, grouped by owner, of the rows that `where` keeps. */
const keptBalancesWhere = (where: string) =>
  `SELECT owner, sum(balance) AS total FROM address_balance_parts ${where} GROUP BY owner`;

/** Each kept balance of the owners in $1 (owners never seen are absent). */
export const KEPT_BALANCES = keptBalancesWhere('WHERE owner = ANY($1::text[])');

const KEPT_BALANCES_OF_ALL = keptBalancesWhere('');

/**
 * `written`: every connection with a balance row or a total row, each once, read from the indexes
 * on `backend` one entry a connection (a loose index scan, PostgreSQL having no skip scan), so
 * its cost is that of the connections, not of the owners. A query using it starts WITH RECURSIVE.
 */
const WRITTEN_BACKENDS = `parts_backends (backend) AS (
       SELECT min(backend) FROM address_balance_parts
       UNION ALL
       SELECT (SELECT min(p.backend) FROM address_balance_parts p WHERE p.backend > b.backend)
         FROM parts_backends b WHERE b.backend IS NOT NULL
     ), written AS (
       SELECT backend FROM parts_backends WHERE backend IS NOT NULL
       UNION SELECT backend FROM balance_total_parts
     )`;

/** The connections of `written` that have ended (backend 0 holds the folded rows). */
const ENDED_BACKENDS = `SELECT w.backend FROM written w
      WHERE w.backend <> 0 AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = w.backend)`;

/**
 * Folds the balance rows and total rows of connections that have ended into backend 0, unless
 * another fold holds the turn; answers how many balance rows went. A connection's rows are
 * written only by its own transactions, one at a time, so a connection that is gone writes them
 * no more. A row that is locked (its process id came back as a new connection, which is writing
 * it) is left for a later fold: the fold never waits for a writer, so the two cannot deadlock.
 * Backend 0's rows are written only by folds, one at a time. Sums do not move: a row's balance
 * moves to backend 0 in the statement that deletes it.
 */
export async function foldEndedBalanceParts(q: Queryable): Promise<number> {
  const rows = await q.query<{ folded: string }>(
    `WITH RECURSIVE turn AS (SELECT pg_try_advisory_xact_lock(${BALANCE_FOLD_LOCK_KEY}) AS mine),
     ${WRITTEN_BACKENDS},
     ended AS (${ENDED_BACKENDS} AND (SELECT mine FROM turn)), taken AS (
       SELECT p.owner, p.backend FROM address_balance_parts p
        WHERE p.backend IN (SELECT backend FROM ended)
        FOR UPDATE SKIP LOCKED
     ), gone AS (
       DELETE FROM address_balance_parts p USING taken
        WHERE p.owner = taken.owner AND p.backend = taken.backend
       RETURNING p.owner, p.balance
     ), folded AS (
       INSERT INTO address_balance_parts AS p (owner, backend, balance)
       SELECT owner, 0, sum(balance) FROM gone GROUP BY owner ORDER BY owner
       ON CONFLICT (owner, backend) DO UPDATE SET balance = p.balance + EXCLUDED.balance
     ), totals_taken AS (
       SELECT t.backend FROM balance_total_parts t
        WHERE t.backend IN (SELECT backend FROM ended)
        FOR UPDATE SKIP LOCKED
     ), totals_gone AS (
       DELETE FROM balance_total_parts t USING totals_taken
        WHERE t.backend = totals_taken.backend
       RETURNING t.total
     ), total_folded AS (
       INSERT INTO balance_total_parts AS t (backend, total)
       SELECT 0, sum(total) FROM totals_gone HAVING count(*) > 0
       ON CONFLICT (backend) DO UPDATE SET total = t.total + EXCLUDED.total
     )
     SELECT count(*)::text AS folded FROM gone`,
  );
  return Number(rows[0]?.folded ?? 0);
}

/** Whether a connection that has ended still has kept balance rows to fold (a read). */
export async function balancePartsEnded(q: Queryable): Promise<boolean> {
  const rows = await q.query<{ ended: boolean }>(
    // A SELECT first: on PGlite, a statement that starts otherwise counts as a write.
    `SELECT EXISTS (WITH RECURSIVE ${WRITTEN_BACKENDS} ${ENDED_BACKENDS}) AS ended`,
    NO_PARAMETERS,
  );
  return rows[0]?.ended === true;
}

export interface BalanceDrift {
  readonly address: string;
  /** The kept balance (the sum of the owner's rows). */
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
