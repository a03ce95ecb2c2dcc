// Funding outputs leased to a process (migrations 006 and 049, docs/adr/0002-batched-write-path.md).
// A process leases available outputs in bulk ahead of demand, so that picking one for a
// transfer is done in memory; its submission batch then reserves the picked outputs, but only
// while it still holds their lease. A lease expires unless its owner renews it: a crashed
// process's outputs come back to the pool by themselves.
import type { Queryable } from '../db/db.js';

/** A funding output as leased and spent: where it is, its value and its locking script. */
export interface FundingOutputRow {
  readonly txid: string;
  readonly vout: number;
  readonly satoshis: bigint;
  readonly lockingScript: Uint8Array;
}

interface LeasedRow {
  txid: string;
  vout: number;
  satoshis: string;
  script: Uint8Array;
  [column: string]: unknown;
}

const toOutput = (row: LeasedRow): FundingOutputRow => ({
  txid: row.txid,
  vout: row.vout,
  satoshis: BigInt(row.satoshis),
  lockingScript: row.script,
});

/**
 * Leases up to `count` available outputs of at least `minSatoshis` that no live lease holds,
 * smallest first, to `owner` until `until`, but never more than a quarter of those (plus one):
 * one busy process cannot take the whole pool from the others. Several processes leasing at
 * once never get the same output (SKIP LOCKED, and the condition re-checked under the row lock).
 */
export async function leaseFundingOutputs(
  q: Queryable,
  lease: { readonly owner: string; readonly now: Date; readonly until: Date },
  count: number,
  minSatoshis = 1n,
): Promise<FundingOutputRow[]> {
  if (count <= 0) return [];
  const rows = await q.query<LeasedRow>(
    // The picked rows in a materialized CTE: as a subquery of IN, PostgreSQL may run it once per
    // row of the outer scan, and a LIMIT ... SKIP LOCKED subquery then picks other rows each time.
    // The quarter is of the free outputs counted up to 4 x count: beyond that it exceeds count
    // anyway, and counting a large pool whole on every lease took 13% of PostgreSQL's statement
    // time in bench:api's production-shaped run (17,390 outputs: docs/adr/0012-bounded-scans-and-cheap-edges.md).
    `WITH picked AS MATERIALIZED (
       SELECT txid, vout FROM funding_outputs
        WHERE state = 'available' AND satoshis >= $4 AND (lease_until IS NULL OR lease_until < $3)
        ORDER BY satoshis, txid, vout
        LIMIT LEAST($5::bigint, (SELECT count(*) / 4 + 1 FROM (
                           SELECT 1 FROM funding_outputs
                            WHERE state = 'available' AND satoshis >= $4
                              AND (lease_until IS NULL OR lease_until < $3)
                            LIMIT 4 * $5::bigint) AS up_to))
        FOR UPDATE SKIP LOCKED)
     UPDATE funding_outputs f SET lease_owner = $1, lease_until = $2
       FROM picked p
      WHERE f.txid = p.txid AND f.vout = p.vout
        AND f.state = 'available' AND (f.lease_until IS NULL OR f.lease_until < $3)
      RETURNING f.txid, f.vout, f.satoshis, f.script`,
    [lease.owner, lease.until, lease.now, minSatoshis, count],
  );
  return rows.map(toOutput).sort((a, b) => (a.satoshis < b.satoshis ? -1 : a.satoshis > b.satoshis ? 1 : 0));
}

/**
 * Extends to `until` the leases among `outputs` (what the owner holds and has not used) that
 * end before `renewBefore` (past half their life, say: a renewal of every lease at every tick was
 * one to two row writes a transfer); answers those of `outputs` the owner still holds, renewed or
 * not (a lost one is not among them). Each row is found by its key: `lease_owner` is not indexed,
 * so that leasing, renewing and giving back are HOT updates (migration 049).
 */
export async function renewFundingLeases(
  q: Queryable,
  owner: string,
  outputs: readonly { readonly txid: string; readonly vout: number }[],
  until: Date,
  renewBefore: Date = until,
): Promise<Set<string>> {
  if (outputs.length === 0) return new Set();
  // The SELECT reads the statement's snapshot, from before the UPDATE: the rows held then, which
  // the update keeps held (it changes only lease_until).
  const rows = await q.query<{ txid: string; vout: number }>(
    `WITH mine AS (SELECT * FROM unnest($4::text[], $5::int[]) AS u(txid, vout)),
     renewed AS (UPDATE funding_outputs f SET lease_until = $2 FROM mine
                  WHERE f.txid = mine.txid AND f.vout = mine.vout
                    AND f.lease_owner = $1 AND f.state = 'available' AND f.lease_until < $3 RETURNING 1)
     SELECT f.txid, f.vout FROM funding_outputs f JOIN mine ON f.txid = mine.txid AND f.vout = mine.vout
      WHERE f.lease_owner = $1 AND f.state = 'available'`,
    [owner, until, renewBefore, outputs.map((o) => o.txid), outputs.map((o) => o.vout)],
  );
  return new Set(rows.map((r) => `${r.txid}_${r.vout}`));
}

/** Gives these leased outputs back to the pool (more than the owner needs now). */
export async function releaseSomeFundingLeases(
  q: Queryable,
  owner: string,
  outputs: readonly { readonly txid: string; readonly vout: number }[],
): Promise<void> {
  if (outputs.length === 0) return;
  await q.query(
    `UPDATE funding_outputs f SET lease_owner = NULL, lease_until = NULL
       FROM unnest($2::text[], $3::int[]) AS u(txid, vout)
      WHERE f.txid = u.txid AND f.vout = u.vout AND f.lease_owner = $1 AND f.state = 'available'`,
    [owner, outputs.map((o) => o.txid), outputs.map((o) => o.vout)],
  );
}

/**
 * Gives the owner's leased outputs back to the pool (an orderly stop, or a start after an earlier
 * run's). Reads the pool's available outputs (`lease_owner` is not indexed): once a run.
 */
export async function releaseFundingLeases(q: Queryable, owner: string): Promise<void> {
  await q.query(
    `UPDATE funding_outputs SET lease_owner = NULL, lease_until = NULL
      WHERE lease_owner = $1 AND state = 'available'`,
    [owner],
  );
}

/**
 * Ends every lease: only where this process is the database's one user (PGlite at start),
 * since leases left by an earlier run of it outlived that run.
 */
export async function releaseAllFundingLeases(q: Queryable): Promise<number> {
  const rows = await q.query(
    `UPDATE funding_outputs SET lease_owner = NULL, lease_until = NULL
      WHERE lease_owner IS NOT NULL RETURNING txid`,
  );
  return rows.length;
}
