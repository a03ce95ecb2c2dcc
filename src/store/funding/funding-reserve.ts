// The funding reserve: outputs of the funding key that the pool refill splits into pool
// outputs, largest first (migration 004). Outputs come from the deploy's change, each split's
// change and the operator's payments to the funding address.
import type { Queryable } from '../db/db.js';

export type ReserveSource = 'deploy' | 'split' | 'payment' | 'setting';
export type ReserveState = 'available' | 'spent' | 'refused';

export interface ReserveOutput {
  readonly txid: string;
  readonly vout: number;
  readonly satoshis: bigint;
}

export interface ReserveRecord extends ReserveOutput {
  readonly source: ReserveSource;
  readonly state: ReserveState;
  readonly error: string | null;
}

interface ReserveRow {
  txid: string;
  vout: number;
  satoshis: string | number | bigint;
  source: ReserveSource;
  state: ReserveState;
  error: string | null;
  [column: string]: unknown;
}

const recordOf = (row: ReserveRow): ReserveRecord => ({
  txid: row.txid,
  vout: Number(row.vout),
  satoshis: BigInt(row.satoshis),
  source: row.source,
  state: row.state,
  error: row.error,
});

/** Records outputs (those already recorded are left as they are); returns the ones added. */
export async function addReserveOutputs(
  q: Queryable,
  outputs: readonly ReserveOutput[],
  source: ReserveSource,
  now: Date,
): Promise<ReserveOutput[]> {
  const added: ReserveOutput[] = [];
  for (const o of outputs) {
    const rows = await q.query(
      `INSERT INTO funding_reserve (txid, vout, satoshis, source, created_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (txid, vout) DO NOTHING RETURNING txid`,
      [o.txid, o.vout, o.satoshis.toString(), source, now],
    );
    if (rows.length > 0) added.push(o);
  }
  return added;
}

/** Available reserve outputs, largest first. */
export async function availableReserve(q: Queryable): Promise<ReserveRecord[]> {
  const rows = await q.query<ReserveRow>(
    `SELECT txid, vout, satoshis, source, state, error FROM funding_reserve
      WHERE state = 'available' ORDER BY satoshis DESC, txid, vout`,
  );
  return rows.map(recordOf);
}

/** Every reserve output of one transaction, by vout. */
export async function reserveOfTransaction(q: Queryable, txid: string): Promise<ReserveRecord[]> {
  const rows = await q.query<ReserveRow>(
    'SELECT txid, vout, satoshis, source, state, error FROM funding_reserve WHERE txid = $1 ORDER BY vout',
    [txid],
  );
  return rows.map(recordOf);
}

/** Marks outputs spent by `spentBy` (a split), or refused by the ledger with `error`. */
export async function settleReserveOutputs(
  q: Queryable,
  outputs: readonly { readonly txid: string; readonly vout: number }[],
  settled:
    | { readonly state: 'spent'; readonly spentBy: string }
    | { readonly state: 'refused'; readonly error: string },
): Promise<void> {
  for (const o of outputs) {
    await q.query(
      `UPDATE funding_reserve SET state = $3, spent_by = $4, error = $5
        WHERE txid = $1 AND vout = $2 AND state = 'available'`,
      [
        o.txid,
        o.vout,
        settled.state,
        settled.state === 'spent' ? settled.spentBy : null,
        settled.state === 'refused' ? settled.error : null,
      ],
    );
  }
}

/**
 * Notes on available outputs why a split spending them with others was refused for good: they
 * stay available, and the refill tries each alone before any other (usecases/funding/pool-refill).
 */
export async function doubtReserveOutputs(
  q: Queryable,
  outputs: readonly { readonly txid: string; readonly vout: number }[],
  error: string,
): Promise<void> {
  await q.query(
    `UPDATE funding_reserve SET error = $3
      FROM unnest($1::text[], $2::int[]) AS u(txid, vout)
     WHERE funding_reserve.txid = u.txid AND funding_reserve.vout = u.vout AND state = 'available'`,
    [outputs.map((o) => o.txid), outputs.map((o) => o.vout), error],
  );
}
