// What the ledger's verdicts do to the index: a transaction accepted, mined, reorged out or
// failed. Each change of a change-feed record takes a new score (call these last in a
// database transaction: the score lock is held to commit). Every row these functions update
// is locked BEFORE the score is drawn: a writer holding the score lock must never wait for a
// row lock, or it deadlocks with a submission that holds the row and waits for the score.
import type { Queryable } from './db.js';
import { nextScores } from './score.js';

export interface BlockPlace {
  readonly height: number;
  readonly idx: number;
  readonly hash: string;
  readonly time: number;
}

/** The network accepted the ticket's transaction: its inputs are spent, no longer merely reserved. */
export async function releaseReservations(tx: Queryable, ticketId: string): Promise<void> {
  await tx.query('UPDATE token_outputs SET reserved_by = NULL WHERE reserved_by = $1', [ticketId]);
  await tx.query("UPDATE funding_outputs SET state = 'spent' WHERE reserved_by = $1", [ticketId]);
}

/** Records block data; returns false when the record already says exactly that. */
export async function markMined(tx: Queryable, txid: string, block: BlockPlace, now: Date): Promise<boolean> {
  const current = await tx.query<{ state: string; blk_hash: string }>(
    'SELECT state, blk_hash FROM transactions WHERE txid = $1 FOR UPDATE',
    [txid],
  );
  const row = current[0];
  if (row === undefined || (row.state === 'mined' && row.blk_hash === block.hash)) return false;
  await lockDependents(tx, txid);
  const [score] = await nextScores(tx, 1);
  await tx.query(
    `UPDATE transactions SET state = 'mined', height = $2, idx = $3, blk_hash = $4, blk_time = $5, score = $6, updated_at = $7
      WHERE txid = $1`,
    [txid, block.height, block.idx, block.hash, block.time, score!, now],
  );
  await rescore(tx, txid, score!, 'confirmed');
  return true;
}

/** The block holding the transaction was reorged out: back to unconfirmed. */
export async function markUnmined(tx: Queryable, txid: string, now: Date): Promise<boolean> {
  const current = await tx.query<{ state: string }>(
    'SELECT state FROM transactions WHERE txid = $1 FOR UPDATE',
    [txid],
  );
  if (current[0]?.state !== 'mined') return false;
  await lockDependents(tx, txid);
  const [score] = await nextScores(tx, 1);
  await tx.query(
    `UPDATE transactions SET state = 'unconfirmed', height = 0, idx = 0, blk_hash = '', blk_time = 0, score = $2,
            updated_at = $3 WHERE txid = $1`,
    [txid, score!, now],
  );
  await rescore(tx, txid, score!, 'unconfirmed');
  return true;
}

/** Txids of live transactions that spend outputs of `txid` (they fail with it). */
export async function spendersOf(tx: Queryable, txid: string): Promise<string[]> {
  const rows = await tx.query<{ spent_by: string }>(
    'SELECT DISTINCT spent_by FROM token_outputs WHERE txid = $1 AND spent_by IS NOT NULL',
    [txid],
  );
  return rows.map((r) => r.spent_by);
}

/**
 * The transaction will never be mined: its token inputs are released, and its funding output if
 * the network never took it; the outputs it would have created are removed, its record says
 * failed. Fail its spenders first.
 */
export async function markFailed(tx: Queryable, ticketId: string, txid: string, now: Date): Promise<void> {
  await tx.query('SELECT txid FROM transactions WHERE txid = $1 FOR UPDATE', [txid]);
  await tx.query('SELECT txid FROM transaction_addresses WHERE txid = $1 FOR UPDATE', [txid]);
  await tx.query('UPDATE token_outputs SET spent_by = NULL, reserved_by = NULL WHERE spent_by = $1', [txid]);
  // Only a funding output the network never took goes back to the pool: one it took ('spent')
  // may now be spent by the rival that won a reorg, and offered again it would fail every
  // transfer that picked it.
  await tx.query(
    "UPDATE funding_outputs SET state = 'available', reserved_by = NULL WHERE reserved_by = $1 AND state = 'reserved'",
    [ticketId],
  );
  await tx.query('DELETE FROM token_outputs WHERE txid = $1', [txid]);
  const [score] = await nextScores(tx, 1);
  await tx.query(
    `UPDATE transactions SET state = 'failed', height = 0, idx = 0, blk_hash = '', blk_time = 0, score = $2, updated_at = $3
      WHERE txid = $1`,
    [txid, score!, now],
  );
  await tx.query('UPDATE transaction_addresses SET score = $2 WHERE txid = $1', [txid, score!]);
}

/** Locks the rows rescore() will update, before the score lock is taken. */
async function lockDependents(tx: Queryable, txid: string): Promise<void> {
  await tx.query('SELECT txid FROM transaction_addresses WHERE txid = $1 FOR UPDATE', [txid]);
  await tx.query('SELECT txid FROM token_outputs WHERE txid = $1 FOR UPDATE', [txid]);
}

async function rescore(tx: Queryable, txid: string, score: bigint, outputState: 'confirmed' | 'unconfirmed') {
  await tx.query('UPDATE transaction_addresses SET score = $2 WHERE txid = $1', [txid, score]);
  await tx.query('UPDATE token_outputs SET score = $2, state = $3 WHERE txid = $1', [
    txid,
    score,
    outputState,
  ]);
}
