// How far the ordered change feed may be read now (docs/adr/0020-scores-drawn-under-shared-markers.md).
//
// A writer that draws scores with SCORE_MARK_JOIN (store/feed/score.ts) first holds a shared
// advisory lock, a "marker", on MARK_BASE + L, L being the sequence's last value before its draw:
// every score it draws is above L, and the marker stays until it commits or rolls back. The bound
// is min(S, M): S the sequence's last value, read first; M the least marker any transaction of
// this database holds (or waits for), read after S. Every score at or below the bound belongs to
// a writer that had ended before M was read, so a statement that begins after this one sees it:
// a reader reads `score > cursor AND score <= bound` in a LATER statement (its own snapshot,
// READ COMMITTED), never in this one, whose snapshot predates the look at the markers.
//
// Why M is read after S, with certainty: the markers are read by a subquery that takes S as its
// parameter (it keeps only markers below S, the only ones that can lower the bound), and
// PostgreSQL evaluates a subquery's parameters before running it.
//
// Markers of other schemas in the same database (the test suites) count too: they can only lower
// the bound for as long as their writers stay open. On PGlite (one transaction at a time) no
// marker is ever held when a reader runs, and the bound is S.
import type { Queryable } from '../db/db.js';
import { NO_PARAMETERS } from '../db/db.js';
import { MARK_BASE, MARK_OF_SCHEMA, SCORE_LAST_VALUE } from './score.js';

/** A marker's key in pg_locks: a bigint advisory lock is (classid, objid) = (high, low) 32 bits, objsubid 1. */
const LOCK_KEY = '((l.classid::bigint << 32) | l.objid::bigint)';

/** This schema's markers are keys from MARK_OF_SCHEMA up, 2^40 of them (score.ts). */
const FEED_BOUND = `SELECT COALESCE(
         (SELECT min(${LOCK_KEY}) - t.base FROM pg_locks l
           WHERE l.locktype = 'advisory' AND l.objsubid = 1
             AND l.database = (SELECT d.oid FROM pg_database d WHERE d.datname = current_database())
             AND l.classid::bigint >= ${MARK_BASE >> 32n}
             AND ${LOCK_KEY} >= t.base AND ${LOCK_KEY} - t.base < s.last),
         s.last)::text AS bound, s.last::text AS last
    FROM (SELECT ${SCORE_LAST_VALUE} AS last OFFSET 0) s, (SELECT ${MARK_OF_SCHEMA} AS base) t`;

/**
 * The highest score a reader may read up to in its next statement: every record with a score at
 * or below it that will ever be visible is visible to a statement that begins after this one
 * answered. It may be below a bound read earlier (a writer that read the sequence before that
 * read, and took its marker after it, draws above it all the same): a reader past it reads nothing.
 */
export async function feedBound(q: Queryable): Promise<bigint> {
  return (await feedEdge(q)).bound;
}

/**
 * The bound and the sequence's last value S it was read with: `bound === last` says no writer that
 * drew at or below S was open, so a later statement sees every change drawn up to S (what a cache
 * keyed by S needs).
 */
export async function feedEdge(q: Queryable): Promise<{ readonly bound: bigint; readonly last: bigint }> {
  const rows = await q.query<{ bound: string; last: string }>(FEED_BOUND, NO_PARAMETERS);
  return { bound: BigInt(rows[0]!.bound), last: BigInt(rows[0]!.last) };
}
