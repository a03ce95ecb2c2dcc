// New change-feed records: the transaction, who it concerns, and the token outputs it creates,
// for any number of records in three set-based statements (arrays unnested in SQL, so there is
// no parameter limit to chunk around). Callers draw the records' scores (store/score.ts) as
// the last step before calling this, inside their transaction.
import type { Queryable } from './db.js';

export interface NewTokenOutput {
  readonly vout: number;
  readonly owner: string;
  readonly amount: bigint;
  readonly op: 'deploy+mint' | 'transfer' | 'burn';
  readonly script: Uint8Array;
  readonly satoshis: bigint;
}

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

export const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

/** Writes the records, their address rows and their token outputs: three statements in all. */
export async function insertFeedRecords(tx: Queryable, records: readonly FeedRecord[]): Promise<void> {
  if (records.length === 0) return;
  const block = (r: FeedRecord) => r.block ?? { height: 0, idx: 0, hash: '', time: 0 };
  // Addresses are Base58 and outs are numbers: a comma joins each list safely.
  await tx.query(
    `INSERT INTO transactions (txid, raw_tx, senders, receivers, outs, state, height, idx, blk_hash, blk_time,
                               score, created_at, updated_at)
     SELECT u.txid, decode(u.raw, 'hex'), string_to_array(u.senders, ','), string_to_array(u.receivers, ','),
            string_to_array(u.outs, ',')::int[], u.state, u.height, u.idx, u.hash, u.time, u.score, u.at, u.at
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::int[],
                   $9::text[], $10::bigint[], $11::bigint[], $12::timestamptz[])
            AS u(txid, raw, senders, receivers, outs, state, height, idx, hash, time, score, at)`,
    [
      records.map((r) => r.txid),
      records.map((r) => hex(r.rawTx)),
      records.map((r) => r.senders.join(',')),
      records.map((r) => r.receivers.join(',')),
      records.map((r) => r.outputs.map((o) => o.vout).join(',')),
      records.map((r) => r.state),
      records.map((r) => block(r).height),
      records.map((r) => block(r).idx),
      records.map((r) => block(r).hash),
      records.map((r) => String(block(r).time)),
      records.map((r) => r.score.toString()),
      records.map((r) => r.now.toISOString()),
    ],
  );
  const concerns = records.flatMap((r) =>
    [...new Set([...r.senders, ...r.receivers])].map((address) => ({ address, r })),
  );
  if (concerns.length > 0) {
    await tx.query(
      `INSERT INTO transaction_addresses (address, txid, score)
       SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[])`,
      [
        concerns.map((c) => c.address),
        concerns.map((c) => c.r.txid),
        concerns.map((c) => c.r.score.toString()),
      ],
    );
  }
  const outputs = records.flatMap((r) => r.outputs.map((o) => ({ o, r })));
  if (outputs.length === 0) return;
  await tx.query(
    `INSERT INTO token_outputs (txid, vout, owner, amount, op, script, satoshis, state, score, created_at)
     SELECT u.txid, u.vout, u.owner, u.amount, u.op, decode(u.script, 'hex'), u.satoshis, u.state, u.score, u.at
       FROM unnest($1::text[], $2::int[], $3::text[], $4::numeric[], $5::text[], $6::text[], $7::bigint[],
                   $8::text[], $9::bigint[], $10::timestamptz[])
            AS u(txid, vout, owner, amount, op, script, satoshis, state, score, at)`,
    [
      outputs.map(({ r }) => r.txid),
      outputs.map(({ o }) => o.vout),
      outputs.map(({ o }) => o.owner),
      outputs.map(({ o }) => o.amount.toString()),
      outputs.map(({ o }) => o.op),
      outputs.map(({ o }) => hex(o.script)),
      outputs.map(({ o }) => o.satoshis.toString()),
      outputs.map(({ r }) => (r.state === 'mined' ? 'confirmed' : 'unconfirmed')),
      outputs.map(({ r }) => r.score.toString()),
      outputs.map(({ r }) => r.now.toISOString()),
    ],
  );
}

/** One record (the deploy): the same three statements. */
export function insertFeedRecord(tx: Queryable, record: FeedRecord): Promise<void> {
  return insertFeedRecords(tx, [record]);
}
