// What `tokenproxy audit` reads (usecases/supply/audit-ledger.ts): the raw bytes of the change feed's
// transactions, the token_outputs index beside them, and the transactions given up on.
import type { Queryable } from '../db/db.js';
import type { TokenOp } from '../wallets/wallet-queries.js';

/** The raw bytes of every transaction not failed, in score order. */
export async function liveRawTransactions(q: Queryable): Promise<{ txid: string; raw: Uint8Array }[]> {
  const rows = await q.query<{ txid: string; raw_tx: Uint8Array }>(
    "SELECT txid, raw_tx FROM transactions WHERE state <> 'failed' ORDER BY score",
  );
  return rows.map((r) => ({ txid: r.txid, raw: r.raw_tx }));
}

export interface IndexedOutput {
  readonly txid: string;
  readonly vout: number;
  readonly owner: string;
  readonly amount: bigint;
  readonly op: TokenOp;
  readonly spent: boolean;
}

/** The index's token outputs of every transaction not failed. */
export async function liveIndexedOutputs(q: Queryable): Promise<IndexedOutput[]> {
  const rows = await q.query<{
    txid: string;
    vout: number;
    owner: string;
    amount: string;
    op: TokenOp;
    spent: boolean;
  }>(
    `SELECT o.txid, o.vout, o.owner, o.amount::text AS amount, o.op, (o.spent_by IS NOT NULL) AS spent
       FROM token_outputs o JOIN transactions t ON t.txid = o.txid
      WHERE t.state <> 'failed'`,
  );
  return rows.map((r) => ({ ...r, amount: BigInt(r.amount) }));
}

/** The txids of the failed transactions, in score order. */
export async function failedTxids(q: Queryable): Promise<string[]> {
  const rows = await q.query<{ txid: string }>(
    "SELECT txid FROM transactions WHERE state = 'failed' ORDER BY score",
  );
  return rows.map((r) => r.txid);
}
