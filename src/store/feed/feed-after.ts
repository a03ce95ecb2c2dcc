// The change feed after a score, in pages, for the live stream (GET /v2/sync/stream): the same
// records GET and POST /v1/sync page through, read with the same statements.
import type { Queryable } from '../db/db.js';
import { feedBound } from './feed-bound.js';
import { type SyncRecord, syncForAddresses, syncFrom } from './feed-queries.js';

/** The highest score a bigint column holds. */
const MAX_SCORE = 2n ** 63n - 1n;

export interface FeedPage {
  readonly records: readonly SyncRecord[];
  /** True when no record after `after` was left out: the page reached the feed's visible end. */
  readonly end: boolean;
}

/**
 * Records with a score above `after` and at most `bound` (the feed's bound, feedBound, read before
 * this call; absent, read here first), ascending, at most about `limit`, concerning `addresses`
 * (null: the whole token). A page never leaves a gap: for addresses, each address's own range is
 * cut at `limit`, so the page ends at the lowest score where some address was cut. `end`: every
 * record up to the bound was read.
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
  const records = await syncForAddresses(q, {
    addresses: query.addresses,
    from: query.after,
    limit: query.limit,
    order: 'asc',
    bound,
  });
  // Where each address's own range was cut: its limit-th record. The page holds more of its
  // records than that (those another address's range brought in, above the cut), but not the
  // ones between, so the page must end there and not at the address's last record in it.
  const counts = new Map<string, number>();
  let cut: bigint | null = null;
  const asked = new Set(query.addresses);
  for (const r of records) {
    for (const a of new Set([...r.senders, ...r.receivers])) {
      if (!asked.has(a)) continue;
      const n = (counts.get(a) ?? 0) + 1;
      counts.set(a, n);
      if (n === query.limit && (cut === null || r.score < cut)) cut = r.score;
    }
  }
  if (cut === null) return { records, end: true };
  const upTo = cut;
  return { records: records.filter((r) => r.score <= upTo), end: false };
}
