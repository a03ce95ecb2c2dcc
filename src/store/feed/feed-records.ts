// New change-feed records: the transaction, who it concerns, and the token outputs it creates,
// for any number of records in one statement of data-modifying CTEs (arrays unnested in SQL, so
// there is no parameter limit to chunk around). Callers either draw the records' scores
// (store/feed/score.ts) as the last step before insertFeedRecords, or let insertScoredFeedRecords
// take the writer's marker and draw them inside the same statement; both inside their transaction.
import type { Queryable, SqlValue } from '../db/db.js';
import { SCORE_DRAW, SCORE_MARK_JOIN } from './score.js';

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

/** Writes the records, their address rows and their token outputs: one statement. */
export async function insertFeedRecords(tx: Queryable, records: readonly FeedRecord[]): Promise<void> {
  if (records.length === 0) return;
  await tx.query(feedInsertSql('u.given_score'), feedInsertParams(records));
}

/**
 * Takes the writer's marker, draws the records' scores and writes them: one statement
 * (store/feed/score.ts, SCORE_MARK_JOIN). Returns the scores, strictly increasing in the order of
 * `records`.
 */
export async function insertScoredFeedRecords(
  tx: Queryable,
  records: readonly Omit<FeedRecord, 'score'>[],
): Promise<bigint[]> {
  if (records.length === 0) return [];
  const params = feedInsertParams(records.map((r) => ({ ...r, score: 0n })));
  const rows = await tx.query<{ score: string }>(feedInsertSql(SCORE_DRAW, true), params);
  return rows.map((r) => BigInt(r.score));
}

/**
 * The one statement: the records in their order with their scores (`scoreExpr`: given, or drawn
 * one record after another under the writer's marker when `marked`), then the three tables
 * written from them. Addresses are Base58 and outs are numbers: a comma joins each list safely.
 */
function feedInsertSql(scoreExpr: string, marked = false): string {
  const mark = marked ? `\n        ${SCORE_MARK_JOIN}` : '';
  return `WITH rec AS MATERIALIZED (
       SELECT u.*, ${scoreExpr} AS score
         FROM (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
                                    $7::int[], $8::int[], $9::text[], $10::bigint[], $11::bigint[], $12::timestamptz[])
                        WITH ORDINALITY AS x(txid, raw, senders, receivers, outs, state, height, idx, hash, time,
                                             given_score, at, ord)
                ORDER BY ord) u${mark}
     ), records AS (
       INSERT INTO transactions (txid, raw_tx, senders, receivers, outs, state, height, idx, blk_hash, blk_time,
                                 score, created_at, updated_at)
       SELECT txid, decode(raw, 'hex'), string_to_array(senders, ','), string_to_array(receivers, ','),
              string_to_array(outs, ',')::int[], state, height, idx, hash, time, score, at, at
         FROM rec
     ), concerns AS (
       INSERT INTO transaction_addresses (address, txid, score)
       SELECT c.address, rec.txid, rec.score
         FROM unnest($13::text[], $14::bigint[]) AS c(address, ord) JOIN rec ON rec.ord = c.ord
     ), outputs AS (
       INSERT INTO token_outputs (txid, vout, owner, amount, op, script, satoshis, score, created_at)
       SELECT rec.txid, o.vout, o.owner, o.amount, o.op, decode(o.script, 'hex'), o.satoshis, rec.score, rec.at
         FROM unnest($15::bigint[], $16::int[], $17::text[], $18::numeric[], $19::text[], $20::text[], $21::bigint[])
              AS o(ord, vout, owner, amount, op, script, satoshis)
         JOIN rec ON rec.ord = o.ord
     )
     SELECT score::text AS score FROM rec ORDER BY ord`;
}

function feedInsertParams(records: readonly FeedRecord[]): SqlValue[] {
  const block = (r: FeedRecord) => r.block ?? { height: 0, idx: 0, hash: '', time: 0 };
  const concerns = records.flatMap((r, i) =>
    [...new Set([...r.senders, ...r.receivers])].map((address) => ({ address, ord: i + 1 })),
  );
  const outputs = records.flatMap((r, i) => r.outputs.map((o) => ({ o, ord: i + 1 })));
  return [
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
    concerns.map((c) => c.address),
    concerns.map((c) => c.ord),
    outputs.map(({ ord }) => ord),
    outputs.map(({ o }) => o.vout),
    outputs.map(({ o }) => o.owner),
    outputs.map(({ o }) => o.amount.toString()),
    outputs.map(({ o }) => o.op),
    outputs.map(({ o }) => hex(o.script)),
    outputs.map(({ o }) => o.satoshis.toString()),
  ];
}

/** One record (the deploy): the same statement. */
export function insertFeedRecord(tx: Queryable, record: FeedRecord): Promise<void> {
  return insertFeedRecords(tx, [record]);
}
