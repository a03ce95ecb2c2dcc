// POST /v1/sync's answer (contract.md, "Long answers"): the records read in pages of about
// PAGE_RECORDS and written to the reply as each page comes, so memory holds one page whatever
// the history's length or the limit asked. The interface's promise stands (limit 0: every
// record), for keyed callers; an anonymous caller's answer stops after `maxRecords`, the first
// of the order asked, and it pages on with `from` (the last score it got). A page merges each
// address's next rows of transaction_addresses by score (one index range each), charges each
// address's quota (its first `perAddress` records) with its rows, and reads the records of the
// transactions they name: together, the pages are exactly what one query for the whole answer
// (syncForAddresses) gives.
import { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type { Queryable } from '../../store/db/db.js';
import { feedBound } from '../../store/feed/feed-bound.js';
import { addressScorePage, syncRecordsOf } from '../../store/feed/feed-queries.js';
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
  /** Records per address (each address's first ones past `from`); 0: all. */
  readonly perAddress: number;
  /** Most records answered; null: all. */
  readonly maxRecords: number | null;
}

/** The JSON array of the records, as a stream that reads a page when the socket wants more. */
export function syncStream(db: Queryable, query: SyncStreamQuery, pageRecords = PAGE_RECORDS): Readable {
  return Readable.from(pages(db, query, pageRecords), { objectMode: false });
}

/** A per-address quota no answer reaches (limit 0). */
const UNBOUNDED = 2 ** 31 - 1;

async function* pages(db: Queryable, query: SyncStreamQuery, pageRecords: number): AsyncGenerator<string> {
  const addresses = [...new Set(query.addresses)];
  const position = new Map(addresses.map((a, i) => [a, i]));
  /** Records each address may still give (its first `perAddress` past `from`). */
  const left = addresses.map(() => (query.perAddress === 0 ? UNBOUNDED : query.perAddress));
  let from = query.from;
  let sent = 0;
  // Read once, before the first page: no page reads above it (store/feed/feed-bound.ts).
  const bound = await feedBound(db);
  yield '[';
  for (;;) {
    const want = query.maxRecords === null ? pageRecords : Math.min(pageRecords, query.maxRecords - sent);
    const open = addresses.flatMap((_, i) => (left[i]! > 0 ? [i] : []));
    if (want <= 0 || open.length === 0) break;
    const rows = await addressScorePage(db, {
      addresses: open.map((i) => addresses[i]!),
      take: open.map((i) => left[i]!),
      from,
      order: query.order,
      page: want,
      bound,
    });
    if (rows.length === 0) break;
    const txids = new Set<string>();
    for (const row of rows) {
      left[position.get(row.address)!]!--;
      txids.add(row.txid);
    }
    let page = await syncRecordsOf(db, [...txids], query.order, bound);
    if (query.maxRecords !== null) page = page.slice(0, query.maxRecords - sent);
    if (page.length > 0)
      yield (sent === 0 ? '' : ',') + page.map((r) => JSON.stringify(syncRecordJson(r))).join(',');
    sent += page.length;
    if (rows.length < want) break;
    from = rows[rows.length - 1]!.score;
  }
  yield ']';
}
