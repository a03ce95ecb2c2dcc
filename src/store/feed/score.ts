// Change-feed scores (contract.md "Score"; docs/adr/0001-change-feed-score.md,
// docs/adr/0020-scores-drawn-under-shared-markers.md).
//
// A poller reads `WHERE score > last ORDER BY score` and remembers the highest score it saw. A
// plain sequence does not make that safe on its own: transaction A may draw 5, transaction B draw
// 6 and commit first; a poller that read 6 would move past 5 and never see it.
//
// Writers do not wait for each other. Before it draws, a writer takes a shared advisory lock, a
// *marker*, on MARK_OF_SCHEMA + L, L being the sequence's last value just before its draw, so every
// score it draws is above L; the marker is held to commit or rollback. Every reader of the ordered
// feed stops at the feed's bound (feed-bound.ts): the sequence's last value, lowered to the least
// marker still held. A score at or below the bound belongs to a writer that has ended, so a reader
// never answers 6 while 5 may still commit. Rolled-back transactions leave gaps, which pollers do
// not mind.
//
// What stays serial is the draw itself (nextval's lock on the sequence's one page, microseconds).
// A writer's open marker holds readers' bound back, hence the rule: draw as the LAST step of the
// transaction (then write the rows that carry the scores, and commit), with no slow work or waiting
// on other locks after it.
//
// On PGlite, transactions run one at a time: no marker is ever held while a reader runs.
import type { Queryable } from '../db/db.js';

/**
 * The marker keys' base: a writer holds the shared advisory lock MARK_OF_SCHEMA + L while it
 * draws and until it ends. 2^62: keys from it up to the largest bigint are markers (pg_locks:
 * classid from 2^30 to 2^31 - 1, objsubid 1), and no other advisory key of this service comes
 * near it.
 */
export const MARK_BASE = 2n ** 62n;

/**
 * The sequence's last value, 0 before the first draw: a function call, read when evaluated (not
 * from the statement's snapshot). The sequence has CACHE 1 (migration 001), so it is the highest
 * score any session has drawn.
 */
export const SCORE_LAST_VALUE = "COALESCE(pg_sequence_last_value('change_score_seq'::regclass), 0)";

/**
 * Where this schema's markers start: MARK_BASE plus a tag of the schema's score sequence (its oid
 * modulo 2^21) times 2^40. Advisory locks are the whole database's: the test suites, each in a
 * schema of its own in one database, would otherwise lower each other's bounds. A score below
 * 2^40 keeps its marker within its schema's range.
 */
export const MARK_OF_SCHEMA = `(${MARK_BASE} + ('change_score_seq'::regclass::oid::bigint % 2097152) * 1099511627776)`;

/** The writer's marker: taken before its draw, held to commit or rollback. */
export const SCORE_MARK = `pg_advisory_xact_lock_shared(${MARK_OF_SCHEMA} + ${SCORE_LAST_VALUE})`;

/** One new score, drawn as a row of a statement joined with SCORE_MARK_JOIN is made. */
export const SCORE_DRAW = "nextval('change_score_seq')";

/**
 * For a statement that takes the marker and draws its scores itself (one round trip less than
 * nextScores and then the write; store/feed/feed-records.ts, store/feed/feed-writes.ts): the rows
 * to score, in their order, CROSS JOINed with SCORE_MARK_JOIN, each drawing SCORE_DRAW. Every scored
 * row is a row joined with the marker's one row, so no score is drawn before the marker is held
 * (test/store/score.test.ts shows it). It is the transaction's last step but its writes and commit.
 */
export const SCORE_MARK_JOIN = `CROSS JOIN (SELECT ${SCORE_MARK}) AS score_mark`;

/**
 * Draws `count` new scores, strictly increasing, for rows written by the calling transaction,
 * after taking its marker. `tx` must be a transaction handle (from db.transaction), never the pool.
 */
export async function nextScores(tx: Queryable, count: number): Promise<bigint[]> {
  if (!Number.isSafeInteger(count) || count < 0) throw new RangeError(`invalid score count ${count}`);
  if (count === 0) return [];
  const rows = await tx.query<{ score: string }>(
    `SELECT ${SCORE_DRAW} AS score FROM generate_series(1, $1::int) ${SCORE_MARK_JOIN} ORDER BY 1`,
    [count],
  );
  return rows.map((row) => BigInt(row.score));
}

/** Takes the writer's marker alone (a test's writer that holds it and draws later). */
export async function markScores(tx: Queryable): Promise<void> {
  await tx.query(`SELECT ${SCORE_MARK}`);
}
