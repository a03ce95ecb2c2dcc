// The change feed as GET and POST /v1/sync read it (contract.md "Parameters", "Score"):
// transaction records in score order, all of them or those concerning some addresses. Every read
// stops at the feed's bound (store/feed/feed-bound.ts, ADR 0020), read in a statement before it:
// the caller's, or one of its own. Below it no record can still appear; above it one could appear
// later with a lower score than one already answered, and a client paging on would skip it.
import { MAX_SCORE } from '../../domain/index-bounds.js';
import type { Queryable } from '../db/db.js';
import { feedBound } from './feed-bound.js';

export type FeedState = 'unconfirmed' | 'mined' | 'failed';
export type SyncOrder = 'asc' | 'desc';

export interface SyncRecord {
  readonly txid: string;
  /** The final (cosigned) transaction. */
  readonly rawTx: Uint8Array;
  readonly senders: readonly string[];
  readonly receivers: readonly string[];
  /** Indices of its token outputs. */
  readonly outs: readonly number[];
  /** 0, with idx 0, blkHash '' and blkTime 0, unless mined. */
  readonly height: number;
  readonly idx: number;
  readonly blkHash: string;
  /** Block time, unix seconds. */
  readonly blkTime: number;
  readonly score: bigint;
  readonly state: FeedState;
}

interface SyncRow {
  txid: string;
  raw_tx: Uint8Array;
  senders: string[];
  receivers: string[];
  outs: number[];
  height: number;
  idx: number;
  blk_hash: string;
  blk_time: string;
  score: string;
  state: FeedState;
  [column: string]: unknown;
}

const COLUMNS =
  't.txid, t.raw_tx, t.senders, t.receivers, t.outs, t.height, t.idx, t.blk_hash, t.blk_time, t.score, t.state';

function toSyncRecord(row: SyncRow): SyncRecord {
  return {
    txid: row.txid,
    rawTx: row.raw_tx,
    senders: row.senders,
    receivers: row.receivers,
    outs: row.outs,
    height: row.height,
    idx: row.idx,
    blkHash: row.blk_hash,
    blkTime: Number(row.blk_time),
    score: BigInt(row.score),
    state: row.state,
  };
}

function checkLimit(limit: number, what: string): void {
  if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError(`invalid ${what} ${limit}`);
}

function checkScore(from: bigint): void {
  if (from < 0n || from > MAX_SCORE) throw new RangeError(`invalid score ${from}`);
}

/**
 * Records with from <= score <= the feed's bound, ascending, at most `limit` of them (GET /v1/sync).
 * `bound`: one the caller read (feedBound) before this call; absent, read here first.
 */
export async function syncFrom(
  q: Queryable,
  opts: { from: bigint; limit: number; bound?: bigint },
): Promise<SyncRecord[]> {
  checkScore(opts.from);
  checkLimit(opts.limit, 'limit');
  if (opts.limit === 0) return [];
  const bound = opts.bound ?? (await feedBound(q));
  if (bound < opts.from) return [];
  const rows = await q.query<SyncRow>(
    `SELECT ${COLUMNS} FROM transactions t WHERE t.score >= $1 AND t.score <= $3 ORDER BY t.score LIMIT $2`,
    [opts.from, opts.limit, bound],
  );
  return rows.map(toSyncRecord);
}

export interface AddressSyncQuery {
  readonly addresses: readonly string[];
  /**
   * The score the caller has read up to, excluded: asc reads scores above it, desc reads
   * scores below it (0: from the newest). The reference client pages by passing the last
   * score of a page (`nextScore`) as the next `from`, so each record comes once.
   */
  readonly from: bigint;
  /** At most this many records per address (0: all); a record of two addresses counts for both. */
  readonly limit: number;
  readonly order: SyncOrder;
  /** The feed's bound, read by the caller before this call (feedBound); absent, read here first. */
  readonly bound?: bigint;
}

/**
 * Records concerning any of the addresses (as sender or receiver), each once, in score
 * order (POST /v1/sync). Each address contributes its own first `limit` records in the
 * requested order (`asc`: scores above `from`; `desc`: newest first, scores below `from` when
 * it is not 0), none above the feed's bound; the union is then sorted by score in that order.
 */
export async function syncForAddresses(q: Queryable, query: AddressSyncQuery): Promise<SyncRecord[]> {
  checkScore(query.from);
  checkLimit(query.limit, 'per-address limit');
  const addresses = [...new Set(query.addresses)];
  if (addresses.length === 0) return [];
  const asc = query.order === 'asc';
  const edge = asc || query.from !== 0n ? query.from : MAX_SCORE;
  const end = query.bound ?? (await feedBound(q));
  const direction = asc ? 'ASC' : 'DESC';
  // One index range per address (transaction_addresses (address, score)), cut at the
  // per-address limit; LIMIT NULL is no limit.
  const rows = await q.query<SyncRow>(
    `SELECT ${COLUMNS}
       FROM (SELECT DISTINCT picked.txid
               FROM unnest($1::text[]) AS wanted(address)
               CROSS JOIN LATERAL (
                 SELECT ta.txid FROM transaction_addresses ta
                  WHERE ta.address = wanted.address AND ta.score ${asc ? '>' : '<'} $2 AND ta.score <= $4
                  ORDER BY ta.score ${direction}
                  LIMIT $3::bigint
               ) AS picked) AS concerned
       JOIN transactions t ON t.txid = concerned.txid
      ORDER BY t.score ${direction}`,
    [addresses, edge, query.limit === 0 ? null : query.limit, end],
  );
  return rows.map(toSyncRecord);
}

/** One row of `transaction_addresses`: an address a transaction concerns, at its score. */
export interface AddressScore {
  readonly address: string;
  readonly txid: string;
  readonly score: bigint;
}

/**
 * The next rows of `transaction_addresses` past `from` (asc: above it; desc: below it, 0 being
 * the newest) for each address, at most its `take` (and `page`) each, merged by score and cut
 * at `page` rows plus the rest of the last score's rows (a transaction's rows are never split
 * between two pages). One index range per address: a page of POST /v1/sync read in parts
 * (src/http/routes/sync-stream.ts).
 */
export async function addressScorePage(
  q: Queryable,
  query: {
    readonly addresses: readonly string[];
    /** Rows each address may still give, in the order of `addresses`. */
    readonly take: readonly number[];
    readonly from: bigint;
    readonly order: 'asc' | 'desc';
    readonly page: number;
    /** The feed's bound (feedBound), read before the answer's first page: no row above it. */
    readonly bound: bigint;
  },
): Promise<AddressScore[]> {
  checkScore(query.from);
  checkLimit(query.page, 'page');
  if (query.addresses.length === 0 || query.page === 0) return [];
  const asc = query.order === 'asc';
  const edge = asc || query.from !== 0n ? query.from : MAX_SCORE;
  const rows = await q.query<{ address: string; txid: string; score: string }>(
    `SELECT picked.address, picked.txid, picked.score
       FROM unnest($1::text[], $2::int[]) AS wanted(address, take)
       CROSS JOIN LATERAL (
         SELECT ta.address, ta.txid, ta.score FROM transaction_addresses ta
          WHERE ta.address = wanted.address AND ta.score ${asc ? '>' : '<'} $3 AND ta.score <= $5
          ORDER BY ta.score ${asc ? 'ASC' : 'DESC'}
          LIMIT LEAST(wanted.take, $4::int)
       ) AS picked
      ORDER BY picked.score ${asc ? 'ASC' : 'DESC'}
      LIMIT $4::int + cardinality($1::text[])`,
    [query.addresses, query.take, edge, query.page, query.bound],
  );
  const all = rows.map((r) => ({ address: r.address, txid: r.txid, score: BigInt(r.score) }));
  if (all.length <= query.page) return all;
  const last = all[query.page - 1]!.score;
  let end = query.page;
  while (end < all.length && all[end]!.score === last) end++;
  return all.slice(0, end);
}

/**
 * The feed records of `txids` the index holds, by score in `order`, none above `bound` (the
 * answer's feedBound): a record rescored since its address row was read, to a score above the
 * bound, is left to the read that reaches its new score.
 */
export async function syncRecordsOf(
  q: Queryable,
  txids: readonly string[],
  order: 'asc' | 'desc',
  bound: bigint,
): Promise<SyncRecord[]> {
  if (txids.length === 0) return [];
  const rows = await q.query<SyncRow>(
    `SELECT ${COLUMNS} FROM transactions t WHERE t.txid = ANY($1::text[]) AND t.score <= $2
      ORDER BY t.score ${order === 'asc' ? 'ASC' : 'DESC'}`,
    [txids, bound],
  );
  return rows.map(toSyncRecord);
}

/** The raw (final, cosigned) transaction of a feed record, or null when there is none. */
/** The raw transactions of `txids` that the index holds, in one query; keyed by lower-case txid. */
export async function rawTransactions(
  q: Queryable,
  txids: readonly string[],
): Promise<Map<string, Uint8Array>> {
  const found = new Map<string, Uint8Array>();
  if (txids.length === 0) return found;
  const rows = await q.query<{ txid: string; raw_tx: Uint8Array }>(
    'SELECT txid, raw_tx FROM transactions WHERE txid = ANY($1::text[])',
    [txids.map((txid) => txid.toLowerCase())],
  );
  for (const row of rows) found.set(row.txid, row.raw_tx);
  return found;
}

export async function rawTransaction(q: Queryable, txid: string): Promise<Uint8Array | null> {
  const rows = await q.query<{ raw_tx: Uint8Array }>('SELECT raw_tx FROM transactions WHERE txid = $1', [
    txid.toLowerCase(),
  ]);
  return rows[0]?.raw_tx ?? null;
}
