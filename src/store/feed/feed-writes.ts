// What the ledger's verdicts do to the index, set-based (one statement for a whole batch): a
// transaction accepted, mined, reorged out or failed. Each changed change-feed record takes a new
// score. Every row these functions update is locked (in a fixed order) BEFORE the score is drawn,
// and the draw is the statement that writes the scored rows, the transaction's last: a writer
// holding its marker (store/feed/score.ts) must not wait for a row lock, since every reader of the
// feed stops below its scores until it ends (docs/adr/0020-scores-drawn-under-shared-markers.md).
import type { Queryable } from '../db/db.js';
import { SCORE_DRAW, SCORE_MARK_JOIN } from './score.js';

export interface BlockPlace {
  readonly height: number;
  readonly idx: number;
  readonly hash: string;
  readonly time: number;
}

export interface RecordRow {
  readonly txid: string;
  readonly state: 'unconfirmed' | 'mined' | 'failed';
  readonly blk_hash: string;
  [column: string]: unknown;
}

/** Locks the change-feed records of `txids` (in txid order); answers them. */
export async function lockRecords(tx: Queryable, txids: readonly string[]): Promise<RecordRow[]> {
  if (txids.length === 0) return [];
  return tx.query<RecordRow>(
    'SELECT txid, state, blk_hash FROM transactions WHERE txid = ANY($1::text[]) ORDER BY txid FOR UPDATE',
    [txids],
  );
}

/**
 * Txids of transactions that spend outputs of `txids`, and of their spenders, and so on: each
 * with the transaction whose output it spends (a failed transaction fails all of them). Each
 * level's outputs are locked before their spenders are read, and stay locked to the commit,
 * which deletes them: a claim of one of them committed first is read here and its transaction
 * fails with the rest; one asked meanwhile waits, then finds the output gone. (Read without the
 * lock, a claim committed between this read and the delete escaped the failure: a transfer
 * spending an output that no longer existed, its own outputs new tokens in the index.)
 */
export async function spenderClosure(
  tx: Queryable,
  txids: readonly string[],
): Promise<{ txid: string; parent: string }[]> {
  const edges = new Map<string, { txid: string; parent: string }>();
  const reached = new Set(txids);
  let level = [...reached];
  while (level.length > 0) {
    const rows = await tx.query<{ txid: string; spent_by: string | null }>(
      'SELECT txid, spent_by FROM token_outputs WHERE txid = ANY($1::text[]) ORDER BY txid, vout FOR UPDATE',
      [level],
    );
    const next: string[] = [];
    for (const r of rows) {
      if (r.spent_by === null) continue;
      edges.set(`${r.spent_by} ${r.txid}`, { txid: r.spent_by, parent: r.txid });
      if (!reached.has(r.spent_by)) {
        reached.add(r.spent_by);
        next.push(r.spent_by);
      }
    }
    level = next;
  }
  return [...edges.values()];
}

/**
 * Locks, in a fixed order, the rows the scored write will update besides the records: the
 * address rows of every record that changes. (Outputs keep the score they were recorded with:
 * docs/adr/0003-outputs-keep-their-score.md.)
 */
export async function lockDependents(tx: Queryable, changed: readonly string[]): Promise<void> {
  if (changed.length === 0) return;
  await tx.query(
    `WITH a AS (SELECT 1 FROM transaction_addresses WHERE txid = ANY($1::text[]) ORDER BY txid, address FOR UPDATE)
     SELECT count(*) AS a FROM a`,
    [changed],
  );
}

/**
 * What the network's taking a ticket's transaction writes: nothing, in the common case. The claim
 * (submission-claims.ts) wrote its token inputs reserved and spent (reserved_by and spent_by) and its
 * funding output reserved (state 'reserved', reserved_by); from then on the ticket's status says what
 * they are: merely reserved while it is BROADCASTING, spent once it left BROADCASTING for the
 * network (docs/adr/0019-reservations-end-with-their-ticket.md). Only a ticket that fails in the same
 * batch that saw the network take it (the tickets' status is written after unwindFailed, which reads
 * it) has its funding output marked spent here, so that its unwinding does not give it back.
 */
export async function releaseReservations(tx: Queryable, ticketIds: readonly string[]): Promise<void> {
  if (ticketIds.length === 0) return;
  await tx.query(
    `UPDATE funding_outputs SET state = 'spent' WHERE reserved_by = ANY($1::uuid[]) AND state = 'reserved'`,
    [ticketIds],
  );
}

/**
 * These transactions will never be mined: their token inputs are released, and their funding
 * outputs if the network never took them; the outputs they would have created are removed. (Their
 * records are marked failed by writeScoredRecords, with a new score.) Runs before the batch's
 * tickets are written: a ticket's stored status is still the one before the batch. A record
 * without a ticket (`ticketId` null: one the reconcile ingested) has no funding output of ours.
 */
export async function unwindFailed(
  tx: Queryable,
  failed: readonly { readonly ticketId: string | null; readonly txid: string }[],
): Promise<void> {
  if (failed.length === 0) return;
  const txids = failed.map((f) => f.txid);
  // Outputs of a failed transaction spent by another failed one are deleted below, not released.
  // Only a funding output the network never took goes back to the pool: its ticket is still
  // BROADCASTING (and was not marked spent by releaseReservations). One it took may now be spent
  // by the rival that won a reorg, and offered again it would fail every transfer that picked it.
  await tx.query(
    `WITH t AS (UPDATE token_outputs SET spent_by = NULL, reserved_by = NULL
                 WHERE spent_by = ANY($1::text[]) AND NOT (txid = ANY($1::text[])) RETURNING 1),
          f AS (UPDATE funding_outputs f SET state = 'available', reserved_by = NULL
                  FROM tickets k
                 WHERE f.reserved_by = ANY($2::uuid[]) AND f.state = 'reserved'
                   AND k.id = f.reserved_by AND k.status = 'BROADCASTING' RETURNING 1)
     SELECT (SELECT count(*) FROM t) AS t, (SELECT count(*) FROM f) AS f`,
    [txids, failed.flatMap((f) => (f.ticketId === null ? [] : [f.ticketId]))],
  );
  await tx.query('DELETE FROM token_outputs WHERE txid = ANY($1::text[])', [txids]);
}

export type RecordChange =
  | { readonly txid: string; readonly kind: 'mined'; readonly block: BlockPlace }
  | { readonly txid: string; readonly kind: 'unmined' | 'failed' };

/**
 * Takes the writer's marker, draws one score per changed record (strictly increasing in the order
 * of `changes`) and writes each record with its score, and the score into its address rows: one
 * statement, the transaction's last step before its commit (store/feed/score.ts, SCORE_MARK_JOIN).
 * The rows it updates were locked before (lockRecords, lockDependents), so it waits for no lock
 * while its marker holds readers' bound back.
 * Outputs keep the score they were recorded with (docs/adr/0003-outputs-keep-their-score.md).
 * Returns the scores.
 */
export async function writeScoredRecords(
  tx: Queryable,
  changes: readonly RecordChange[],
  now: Date,
): Promise<bigint[]> {
  if (changes.length === 0) return [];
  const block = (c: RecordChange) =>
    c.kind === 'mined' ? c.block : { height: 0, idx: 0, hash: '', time: 0 };
  const rows = await tx.query<{ score: string }>(
    `WITH u AS MATERIALIZED (
       SELECT v.*, ${SCORE_DRAW} AS score
         FROM (SELECT * FROM unnest($2::text[], $3::text[], $4::int[], $5::int[], $6::text[], $7::bigint[])
                        WITH ORDINALITY AS x(txid, state, height, idx, hash, time, ord)
                ORDER BY ord) v
        ${SCORE_MARK_JOIN}
     ), t AS (
       UPDATE transactions t SET state = u.state, height = u.height, idx = u.idx, blk_hash = u.hash,
              blk_time = u.time, score = u.score, updated_at = $1
         FROM u WHERE t.txid = u.txid
     ), a AS (
       UPDATE transaction_addresses a SET score = u.score FROM u WHERE a.txid = u.txid
     )
     SELECT score::text AS score FROM u ORDER BY ord`,
    [
      now,
      changes.map((c) => c.txid),
      changes.map((c) => (c.kind === 'mined' ? 'mined' : c.kind === 'unmined' ? 'unconfirmed' : 'failed')),
      changes.map((c) => block(c).height),
      changes.map((c) => block(c).idx),
      changes.map((c) => block(c).hash),
      changes.map((c) => String(block(c).time)),
    ],
  );
  return rows.map((r) => BigInt(r.score));
}
