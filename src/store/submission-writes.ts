// The write that accepts a transfer: in one database transaction, the ticket, the reservation
// of its token inputs and funding output, the change-feed record and its new token outputs.
// Exactly one of two submissions spending the same output succeeds: the reservation is a
// conditional UPDATE, and the loser's transaction rolls back.
import type { Queryable } from './db.js';
import { nextScores } from './score.js';
import { appendTicketEvent } from './ticket-writes.js';

export interface FundingOutputRow {
  readonly txid: string;
  readonly vout: number;
  readonly satoshis: bigint;
  readonly lockingScript: Uint8Array;
}

export interface NewTokenOutput {
  readonly vout: number;
  readonly owner: string;
  readonly amount: bigint;
  readonly op: 'deploy+mint' | 'transfer' | 'burn';
  readonly script: Uint8Array;
  readonly satoshis: bigint;
}

export interface Submission {
  readonly ticketId: string;
  readonly txid: string;
  readonly submittedTxid: string;
  readonly rawTx: Uint8Array;
  readonly inputs: readonly { readonly txid: string; readonly vout: number }[];
  readonly funding: { readonly txid: string; readonly vout: number };
  readonly outputs: readonly NewTokenOutput[];
  readonly senders: readonly string[];
  readonly receivers: readonly string[];
  readonly callbackUrl: string | null;
  readonly callbackSecretEnc: Uint8Array | null;
  readonly apiKeyId: string | null;
  readonly now: Date;
}

/** Raised inside the transaction when an input was taken by another submission meanwhile. */
export class InputConflictError extends Error {
  constructor(readonly outpoints: readonly string[]) {
    super(`inputs taken meanwhile: ${outpoints.join(', ')}`);
    this.name = 'InputConflictError';
  }
}

/** The smallest available funding output of at least `minSatoshis`, locked for this transaction. */
export async function pickFundingOutput(
  tx: Queryable,
  minSatoshis: bigint,
): Promise<FundingOutputRow | null> {
  const rows = await tx.query<{ txid: string; vout: number; satoshis: string; script: Uint8Array }>(
    `SELECT txid, vout, satoshis, script FROM funding_outputs
      WHERE state = 'available' AND satoshis >= $1
      ORDER BY satoshis, txid, vout LIMIT 1 FOR UPDATE SKIP LOCKED`,
    [minSatoshis],
  );
  const row = rows[0];
  return row === undefined
    ? null
    : { txid: row.txid, vout: row.vout, satoshis: BigInt(row.satoshis), lockingScript: row.script };
}

export async function ticketIdBySubmittedTxid(q: Queryable, submittedTxid: string): Promise<string | null> {
  const rows = await q.query<{ id: string }>('SELECT id FROM tickets WHERE submitted_txid = $1', [
    submittedTxid,
  ]);
  return rows[0]?.id ?? null;
}

export async function recordSubmission(tx: Queryable, s: Submission): Promise<void> {
  await tx.query(
    `INSERT INTO tickets (id, txid, submitted_txid, raw_tx, status, status_rank, callback_url,
                          callback_secret_enc, api_key_id, next_check_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, 'BROADCASTING', 10, $5, $6, $7, $8, $8, $8)`,
    [s.ticketId, s.txid, s.submittedTxid, s.rawTx, s.callbackUrl, s.callbackSecretEnc, s.apiKeyId, s.now],
  );
  const reserved = await tx.query<{ txid: string; vout: number }>(
    `UPDATE token_outputs SET reserved_by = $1, spent_by = $2
      WHERE (txid, vout) IN (SELECT * FROM unnest($3::text[], $4::int[]))
        AND spent_by IS NULL AND reserved_by IS NULL AND op <> 'burn'
      RETURNING txid, vout`,
    [s.ticketId, s.txid, s.inputs.map((i) => i.txid), s.inputs.map((i) => i.vout)],
  );
  if (reserved.length !== s.inputs.length) {
    const got = new Set(reserved.map((r) => `${r.txid}_${r.vout}`));
    throw new InputConflictError(s.inputs.map((i) => `${i.txid}_${i.vout}`).filter((o) => !got.has(o)));
  }
  const funding = await tx.query(
    `UPDATE funding_outputs SET state = 'reserved', reserved_by = $1
      WHERE txid = $2 AND vout = $3 AND state = 'available' RETURNING txid`,
    [s.ticketId, s.funding.txid, s.funding.vout],
  );
  if (funding.length !== 1)
    throw new Error(`funding output ${s.funding.txid}_${s.funding.vout} is not available`);
  if (s.callbackUrl !== null) await appendTicketEvent(tx, s.ticketId, s.now);
  const [score] = await nextScores(tx, 1);
  await insertFeedRecord(tx, {
    txid: s.txid,
    rawTx: s.rawTx,
    senders: s.senders,
    receivers: s.receivers,
    outputs: s.outputs,
    state: 'unconfirmed',
    score: score!,
    now: s.now,
  });
}

/** Outputs written per INSERT statement (PostgreSQL takes at most 65,535 parameters). */
const OUTPUTS_PER_INSERT = 1000;

export interface FeedRecord {
  readonly txid: string;
  readonly rawTx: Uint8Array;
  readonly senders: readonly string[];
  readonly receivers: readonly string[];
  readonly outputs: readonly NewTokenOutput[];
  readonly state: 'unconfirmed' | 'mined';
  readonly score: bigint;
  readonly block?: {
    readonly height: number;
    readonly idx: number;
    readonly hash: string;
    readonly time: number;
  };
  readonly now: Date;
}

/** A change-feed record, who it concerns, and the token outputs it creates. */
export async function insertFeedRecord(tx: Queryable, r: FeedRecord): Promise<void> {
  const b = r.block ?? { height: 0, idx: 0, hash: '', time: 0 };
  await tx.query(
    `INSERT INTO transactions (txid, raw_tx, senders, receivers, outs, state, height, idx, blk_hash, blk_time,
                               score, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12)`,
    [
      r.txid,
      r.rawTx,
      r.senders,
      r.receivers,
      r.outputs.map((o) => o.vout),
      r.state,
      b.height,
      b.idx,
      b.hash,
      b.time,
      r.score,
      r.now,
    ],
  );
  const addresses = [...new Set([...r.senders, ...r.receivers])];
  await tx.query(
    'INSERT INTO transaction_addresses (address, txid, score) SELECT a, $2, $3 FROM unnest($1::text[]) AS a',
    [addresses, r.txid, r.score],
  );
  const outputState = r.state === 'mined' ? 'confirmed' : 'unconfirmed';
  for (let from = 0; from < r.outputs.length; from += OUTPUTS_PER_INSERT) {
    const chunk = r.outputs.slice(from, from + OUTPUTS_PER_INSERT);
    // $1-$4 are shared by every row, then six parameters per output.
    const rows = chunk.map((_, i) => {
      const p = 5 + i * 6;
      return `($1, $${p}, $${p + 1}, $${p + 2}, $${p + 3}, $${p + 4}, $${p + 5}, $2, $3, $4)`;
    });
    await tx.query(
      `INSERT INTO token_outputs (txid, vout, owner, amount, op, script, satoshis, state, score, created_at)
       VALUES ${rows.join(', ')}`,
      [
        r.txid,
        outputState,
        r.score,
        r.now,
        ...chunk.flatMap((o) => [o.vout, o.owner, o.amount, o.op, o.script, o.satoshis]),
      ],
    );
  }
}
