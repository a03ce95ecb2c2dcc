// The writes `tokenproxy reconcile --repair` makes (usecases/supply/reconcile-ledger.ts), each
// run inside the database transaction its caller opens for one repair: token inputs spent by a
// transaction the index missed, free funding outputs the ledger saw spent, tickets handed back
// to the tracker.
import type { Queryable } from '../db/db.js';
import type { Outpoint } from './reconcile-reads.js';

/**
 * The indexed token outputs among `outpoints` marked spent by `txid` (locked in outpoint order
 * first); one already spent by another transaction is left as it is.
 */
export async function spendTokenInputs(
  q: Queryable,
  outpoints: readonly Outpoint[],
  txid: string,
): Promise<void> {
  await q.query(
    `WITH locked AS MATERIALIZED (
       SELECT o.txid, o.vout FROM unnest($1::text[], $2::int[]) AS u(txid, vout)
         JOIN token_outputs o ON o.txid = u.txid AND o.vout = u.vout
        ORDER BY o.txid, o.vout FOR UPDATE OF o)
     UPDATE token_outputs o SET spent_by = $3, reserved_by = NULL FROM locked l
      WHERE o.txid = l.txid AND o.vout = l.vout AND (o.spent_by IS NULL OR o.spent_by = $3)`,
    [outpoints.map((o) => o.txid), outpoints.map((o) => o.vout), txid],
  );
}

/** The available funding outputs among `outpoints` of one table marked spent; answers them (`txid_vout`). */
export async function markFundingSpent(
  q: Queryable,
  table: 'pool' | 'reserve',
  outpoints: readonly Outpoint[],
): Promise<string[]> {
  const sql =
    table === 'pool'
      ? `UPDATE funding_outputs f SET state = 'spent', reserved_by = NULL, lease_owner = NULL, lease_until = NULL
           FROM unnest($1::text[], $2::int[]) AS u(txid, vout)
          WHERE f.txid = u.txid AND f.vout = u.vout AND f.state = 'available' RETURNING f.txid, f.vout`
      : `UPDATE funding_reserve f SET state = 'spent'
           FROM unnest($1::text[], $2::int[]) AS u(txid, vout)
          WHERE f.txid = u.txid AND f.vout = u.vout AND f.state = 'available' RETURNING f.txid, f.vout`;
  const rows = await q.query<{ txid: string; vout: number }>(sql, [
    outpoints.map((o) => o.txid),
    outpoints.map((o) => o.vout),
  ]);
  return rows.map((r) => `${r.txid}_${Number(r.vout)}`);
}

/**
 * The untracked, not failed tickets among `ids` handed back to the tracker (checked from `now`,
 * no lease); answers their ids.
 */
export async function retrackTickets(q: Queryable, ids: readonly string[], now: Date): Promise<string[]> {
  const rows = await q.query<{ id: string }>(
    `UPDATE tickets SET next_check_at = $2, lease_until = NULL
      WHERE id = ANY($1::uuid[]) AND status <> 'FAILED' AND next_check_at IS NULL RETURNING id::text AS id`,
    [ids, now],
  );
  return rows.map((r) => r.id);
}
