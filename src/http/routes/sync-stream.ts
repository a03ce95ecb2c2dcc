// POST /v1/sync's answer when it may be long (contract.md, "Long answers"): the records read in
// pages of PAGE_RECORDS and written to the reply as each page comes, so memory holds one page
// whatever the history's length. The interface's promise stands (limit 0: every record), for
// keyed callers; an anonymous caller's answer stops after `maxRecords`, the first of the order
// asked, and it pages on with `from` (the last score it got). A page is the first PAGE_RECORDS
// of the union of each address's next PAGE_RECORDS records (one index range each), so the pages
// together are exactly the single query's answer.
import { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type { Queryable } from '../../store/db/db.js';
import { type SyncRecord, syncForAddresses } from '../../store/feed/feed-queries.js';
import { syncRecordJson } from './wire.js';

/** Records one anonymous request is answered at most, when the deployment does not say. */
export const ANONYMOUS_MAX_RECORDS = 5_000;

/**
 * The most records a request may be answered: null for a caller with a key of its own, the
 * anonymous cap for one without (a shared public principal is everyone's).
 */
export function anonymousCap(
  request: FastifyRequest,
  deps: { readonly anonymousMaxRecords?: number },
): number | null {
  const anonymous = request.principal === null || request.principal.shared === true;
  return anonymous ? (deps.anonymousMaxRecords ?? ANONYMOUS_MAX_RECORDS) : null;
}

/** Records read and written at once. */
export const PAGE_RECORDS = 500;

export interface SyncStreamQuery {
  readonly addresses: readonly string[];
  readonly from: bigint;
  readonly order: 'asc' | 'desc';
  /** Most records answered; null: all. */
  readonly maxRecords: number | null;
}

/** The JSON array of the records, as a stream that reads a page when the socket wants more. */
export function syncStream(db: Queryable, query: SyncStreamQuery, pageRecords = PAGE_RECORDS): Readable {
  return Readable.from(pages(db, query, pageRecords), { objectMode: false });
}

async function* pages(db: Queryable, query: SyncStreamQuery, pageRecords: number): AsyncGenerator<string> {
  let from = query.from;
  let sent = 0;
  yield '[';
  for (;;) {
    const want = query.maxRecords === null ? pageRecords : Math.min(pageRecords, query.maxRecords - sent);
    if (want <= 0) break;
    const page: SyncRecord[] = (
      await syncForAddresses(db, { addresses: query.addresses, from, limit: want, order: query.order })
    ).slice(0, want);
    if (page.length === 0) break;
    yield (sent === 0 ? '' : ',') + page.map((r) => JSON.stringify(syncRecordJson(r))).join(',');
    sent += page.length;
    if (page.length < want) break;
    from = page[page.length - 1]!.score;
  }
  yield ']';
}
