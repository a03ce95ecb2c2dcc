// Change-feed scores (contract.md "Score"; docs/adr/0001-change-feed-score.md).
//
// A poller reads `WHERE score > last ORDER BY score` and remembers the highest score it saw.
// That is only safe if a lower score can never become visible after a higher one: a plain
// sequence does not give that, because transaction A may draw 5, transaction B draw 6 and
// commit first; a poller then sees 6, moves on, and never sees 5.
//
// So scores are drawn under a transaction-scoped advisory lock: the lock is held until the
// transaction commits (or rolls back), and PostgreSQL releases it only after the commit is
// visible. Writers therefore draw scores one after another, and the next writer draws only
// once the previous one's rows are visible: scores become visible in increasing order.
// Rolled-back transactions leave gaps, which pollers do not mind.
//
// The price is that writers serialise on the lock from the draw to commit. Hence the rule:
// call nextScores() as the LAST step of the transaction (then write the rows that carry the
// scores, and commit), with no slow work or waiting on other locks after it.
//
// On PGlite, transactions already run one at a time; the lock costs nothing there.
//
// Readers of the ordered feed also stop at its bound (feed-bound.ts), which stays true if writers
// draw under shared markers instead (SCORE_MARK_JOIN): docs/adr/0020-scores-drawn-under-shared-markers.md
// says what must change before they do.
import type { Queryable } from '../db/db.js';

/** Advisory lock key serialising score draws (any constant unique to this use). */
export const SCORE_LOCK_KEY = 7_364_821_002;

/**
 * The marker keys' base (docs/adr/0020-scores-drawn-under-shared-markers.md): a writer that draws
 * with SCORE_MARK_JOIN holds the shared advisory lock MARK_BASE + L, L being the sequence's last
 * value just before its draw, so every score it draws is above L. 2^62: keys from it up to the
 * largest bigint are markers (pg_locks: classid from 2^30 to 2^31 - 1, objsubid 1), and no other
 * advisory key of this service comes near it.
 */
export const MARK_BASE = 2n ** 62n;

/**
 * The sequence's last value, 0 before the first draw: a function call, read when evaluated (not
 * from the statement's snapshot). The sequence has CACHE 1 (migration 001), so it is the highest
 * score any session has drawn.
 */
export const SCORE_LAST_VALUE = "COALESCE(pg_sequence_last_value('change_score_seq'::regclass), 0)";

/**
 * The writer's marker (ADR 0020): the shared advisory lock MARK_BASE + the sequence's last value,
 * taken before the writer draws, held to commit or rollback. Writers that still serialise on the
 * score lock take it too, once they hold the lock: a reader's bound (feed-bound.ts) then stays
 * below every score drawn and not yet committed, whichever way writers draw, so a reader may
 * start a cursor at the bound (the feed hub does) without passing a score still to come.
 */
/**
 * Where this schema's markers start: MARK_BASE plus a tag of the schema's score sequence (its oid
 * modulo 2^21) times 2^40. Advisory locks are the whole database's: the test suites, each in a
 * schema of its own in one database, would otherwise lower each other's bounds. A score below
 * 2^40 keeps its marker within its schema's range.
 */
export const MARK_OF_SCHEMA = `(${MARK_BASE} + ('change_score_seq'::regclass::oid::bigint % 2097152) * 1099511627776)`;

export const SCORE_MARK = `pg_advisory_xact_lock_shared(${MARK_OF_SCHEMA} + ${SCORE_LAST_VALUE})`;

/**
 * Draws `count` new scores, strictly increasing, for rows written by the calling
 * transaction. `tx` must be a transaction handle (from db.transaction), never the pool.
 */
export async function nextScores(tx: Queryable, count: number): Promise<bigint[]> {
  if (!Number.isSafeInteger(count) || count < 0) throw new RangeError(`invalid score count ${count}`);
  if (count === 0) return [];
  await lockScores(tx);
  const rows = await tx.query<{ score: string }>(
    "SELECT nextval('change_score_seq') AS score FROM generate_series(1, $1::int) ORDER BY 1",
    [count],
  );
  return rows.map((row) => BigInt(row.score));
}

/**
 * Takes the score lock, held to commit, then the writer's marker (SCORE_MARK): the draw that
 * follows (nextScores) must come next.
 */
export async function lockScores(tx: Queryable): Promise<void> {
  await tx.query(`SELECT ${SCORE_MARK} FROM (SELECT pg_advisory_xact_lock($1) OFFSET 0) AS held`, [
    SCORE_LOCK_KEY,
  ]);
}

/**
 * For a statement that takes the score lock and draws its scores itself (one round trip less
 * than lockScores + nextScores; store/feed/feed-records.ts, store/feed/feed-writes.ts): the rows to score,
 * in their order, CROSS JOINed with SCORE_LOCK_JOIN, each drawing SCORE_DRAW. Every scored row is
 * a row joined with the one row of `pg_advisory_xact_lock` and then the marker (SCORE_MARK; the
 * OFFSET 0 keeps the lock's subquery apart, run first), so no score is drawn before both are
 * held. The statement's snapshot predates the lock: it may only insert rows, or update rows its
 * transaction locked before. It is the transaction's last lock, as for nextScores.
 */
export const SCORE_LOCK_JOIN = `CROSS JOIN (SELECT ${SCORE_MARK} FROM (SELECT pg_advisory_xact_lock(${SCORE_LOCK_KEY}) OFFSET 0) AS held) AS score_lock`;

/**
 * SCORE_LOCK_JOIN's successor (ADR 0020): instead of the exclusive lock, a shared marker on
 * MARK_BASE + the sequence's last value, taken before anything is drawn (the draw is in the
 * projection of the rows joined with this one row, as for SCORE_LOCK_JOIN). Writers never wait
 * for each other; a reader of the ordered feed reads no score above the least marker held
 * (store/feed/feed-bound.ts). Held to commit or rollback, in shared memory, no WAL.
 */
export const SCORE_MARK_JOIN = `CROSS JOIN (SELECT ${SCORE_MARK}) AS score_lock`;

/** One new score, drawn as a row of a statement joined with SCORE_LOCK_JOIN is made. */
export const SCORE_DRAW = "nextval('change_score_seq')";
