// What `tokenproxy reconcile` reads of the database (usecases/supply/reconcile-ledger.ts): the
// tickets, and what the index holds of the ledger transactions it compares: their records, the
// token outputs and free funding outputs they spend, and the funding they paid.
import type { DbFunding, DbOutput, DbTicket } from '../../domain/reconciliation.js';
import type { TicketStatus } from '../../domain/ticket-state.js';
import type { Queryable } from '../db/db.js';

/** An output named by its transaction and index. */
export interface Outpoint {
  readonly txid: string;
  readonly vout: number;
}

/** Every ticket, in id order, and whether the tracker still follows it. */
export async function reconcileTickets(q: Queryable): Promise<DbTicket[]> {
  const rows = await q.query<{ id: string; txid: string; status: TicketStatus; tracked: boolean }>(
    'SELECT id::text AS id, txid, status, (next_check_at IS NOT NULL) AS tracked FROM tickets ORDER BY id',
  );
  return rows.map((r) => ({ id: r.id, txid: r.txid, status: r.status, tracked: r.tracked === true }));
}

/** Which of `txids` have a record in the change feed. */
export async function recordedTxids(q: Queryable, txids: readonly string[]): Promise<Set<string>> {
  const rows = await q.query<{ txid: string }>('SELECT txid FROM transactions WHERE txid = ANY($1::text[])', [
    txids,
  ]);
  return new Set(rows.map((r) => r.txid));
}

/** The indexed token outputs among `outpoints`, keyed `txid_vout`. */
export async function indexedOutputsAt(
  q: Queryable,
  outpoints: readonly Outpoint[],
): Promise<Map<string, DbOutput>> {
  const rows = await q.query<{
    txid: string;
    vout: number;
    owner: string;
    amount: string;
    op: DbOutput['op'];
    spent_by: string | null;
  }>(
    `SELECT o.txid, o.vout, o.owner, o.amount::text AS amount, o.op, o.spent_by
       FROM unnest($1::text[], $2::int[]) AS u(txid, vout) JOIN token_outputs o ON o.txid = u.txid AND o.vout = u.vout`,
    [outpoints.map((o) => o.txid), outpoints.map((o) => o.vout)],
  );
  const outputs = new Map<string, DbOutput>();
  for (const r of rows)
    outputs.set(`${r.txid}_${Number(r.vout)}`, {
      owner: r.owner,
      amount: BigInt(r.amount),
      op: r.op,
      spentBy: r.spent_by,
    });
  return outputs;
}

/** The funding outputs among `outpoints` still available: the pool's first, then the reserve's. */
export async function freeFundingAt(q: Queryable, outpoints: readonly Outpoint[]): Promise<DbFunding[]> {
  const params = [outpoints.map((o) => o.txid), outpoints.map((o) => o.vout)];
  const [poolRows, reserveRows] = await Promise.all([
    q.query<{ txid: string; vout: number }>(
      `SELECT f.txid, f.vout FROM unnest($1::text[], $2::int[]) AS u(txid, vout)
         JOIN funding_outputs f ON f.txid = u.txid AND f.vout = u.vout WHERE f.state = 'available'`,
      params,
    ),
    q.query<{ txid: string; vout: number }>(
      `SELECT f.txid, f.vout FROM unnest($1::text[], $2::int[]) AS u(txid, vout)
         JOIN funding_reserve f ON f.txid = u.txid AND f.vout = u.vout WHERE f.state = 'available'`,
      params,
    ),
  ]);
  return [
    ...poolRows.map((r) => ({
      outpoint: `${r.txid}_${Number(r.vout)}`,
      table: 'pool' as const,
      state: 'available' as const,
    })),
    ...reserveRows.map((r) => ({
      outpoint: `${r.txid}_${Number(r.vout)}`,
      table: 'reserve' as const,
      state: 'available' as const,
    })),
  ];
}

/** Which of `txids` paid an output into the funding pool or the reserve. */
export async function fundingTxidsAmong(q: Queryable, txids: readonly string[]): Promise<Set<string>> {
  const rows = await q.query<{ txid: string }>(
    `SELECT txid FROM funding_outputs WHERE txid = ANY($1::text[])
     UNION SELECT txid FROM funding_reserve WHERE txid = ANY($1::text[])`,
    [txids],
  );
  return new Set(rows.map((r) => r.txid));
}
