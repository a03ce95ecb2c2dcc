// The change feed after a score, in pages, for the live stream (GET /v2/sync/stream): the same
// records GET and POST /v1/sync page through, read with the same statements.
import { MAX_SCORE } from '../../domain/index-bounds.js';
import type { Queryable } from '../db/db.js';
import { feedBound } from './feed-bound.js';
import { addressScorePage, type SyncRecord, syncFrom, syncRecordsOf } from './feed-queries.js';

export interface FeedPage {
  readonly records: readonly SyncRecord[];
  /** True when no record after `after` was left out: the page reached the feed's visible end. */
  readonly end: boolean;
}

/**
 * Records with a score above `after` and at most `bound` (the feed's bound, feedBound, read before
 * this call; absent, read here first), ascending, concerning `addresses` (null: the whole token).
 * A page holds at most `limit` records. For addresses, the address rows are read merged in score
 * order across the addresses, cut after `limit` rows and the rows of the same record
 * (addressScorePage), then their records: the page never leaves a gap, since no row below the cut
 * was left out, and its size does not grow with the number of addresses. `end`: every record up
 * to the bound was read.
 */
export async function feedAfter(
  q: Queryable,
  query: {
    readonly after: bigint;
    readonly addresses: readonly string[] | null;
    readonly limit: number;
    readonly bound?: bigint;
  },
): Promise<FeedPage> {
  if (query.after >= MAX_SCORE) return { records: [], end: true };
  const bound = query.bound ?? (await feedBound(q));
  if (query.addresses === null) {
    const records = await syncFrom(q, { from: query.after + 1n, limit: query.limit, bound });
    return { records, end: records.length < query.limit };
  }
  const addresses = [...new Set(query.addresses)];
  const rows = await addressScorePage(q, {
    addresses,
    take: addresses.map(() => query.limit),
    from: query.after,
    order: 'asc',
    page: query.limit,
    bound,
  });
  // A record rescored since its rows were read has a score above the bound: left to the page that
  // reaches it there.
  const records = await syncRecordsOf(q, [...new Set(rows.map((r) => r.txid))], 'asc', bound);
  return { records, end: rows.length < query.limit };
}
