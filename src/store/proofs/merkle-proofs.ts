// Merkle paths (BUMP, BRC-74) of mined transactions, per transaction and block, and the headers
// (height, hash, merkle root) of the blocks they belong to (migration 031). A block seen at a
// height makes any other block of that height not current: a reorg replaced it.
import type { Queryable } from '../db/db.js';

export interface StoredProof {
  readonly txid: string;
  readonly blockHash: string;
  readonly height: number;
  readonly bump: Uint8Array;
}

export interface BlockHeader {
  readonly height: number;
  readonly hash: string;
  readonly merkleRoot: string;
}

/** The stored path of `txid` in block `blockHash`, or null. */
export async function proofIn(q: Queryable, txid: string, blockHash: string): Promise<StoredProof | null> {
  const rows = await q.query<{ height: number; bump: Uint8Array }>(
    'SELECT height, bump FROM merkle_proofs WHERE txid = $1 AND block_hash = $2',
    [txid, blockHash],
  );
  const row = rows[0];
  return row === undefined ? null : { txid, blockHash, height: row.height, bump: row.bump };
}

/**
 * A stored path of `txid` in a block that is current at its height (for a transaction the change
 * feed does not hold, whose block only the ledger could name otherwise), or null.
 */
export async function currentProofOf(q: Queryable, txid: string): Promise<StoredProof | null> {
  const rows = await q.query<{ block_hash: string; height: number; bump: Uint8Array }>(
    `SELECT p.block_hash, p.height, p.bump FROM merkle_proofs p
       JOIN block_headers h ON h.hash = p.block_hash AND h.current
      WHERE p.txid = $1
      ORDER BY p.height DESC LIMIT 1`,
    [txid],
  );
  const row = rows[0];
  return row === undefined ? null : { txid, blockHash: row.block_hash, height: row.height, bump: row.bump };
}

/** Keeps a path and its block's header (the current one at its height from now on). */
export async function saveProof(q: Queryable, proof: StoredProof, merkleRoot: string): Promise<void> {
  await q.query(
    `WITH p AS (
       INSERT INTO merkle_proofs (txid, block_hash, height, bump) VALUES ($1, $2, $3, $4)
       ON CONFLICT (txid, block_hash) DO UPDATE SET bump = EXCLUDED.bump, height = EXCLUDED.height
       RETURNING 1
     ), stale AS (
       UPDATE block_headers SET current = false WHERE height = $3 AND hash <> $2 AND current
       RETURNING 1
     )
     INSERT INTO block_headers (hash, height, merkle_root, current) VALUES ($2, $3, $5, true)
     ON CONFLICT (hash) DO UPDATE SET current = true, merkle_root = EXCLUDED.merkle_root, height = EXCLUDED.height`,
    [proof.txid, proof.blockHash, proof.height, proof.bump, merkleRoot],
  );
}

/** The block `hash` left the chain (a transaction kept in it is mined elsewhere, or not at all). */
export async function forgetBlock(q: Queryable, hash: string): Promise<void> {
  await q.query('UPDATE block_headers SET current = false WHERE hash = $1 AND current', [hash]);
}

/** The current headers from `from` up, at most `limit`, by height. */
export async function currentHeaders(q: Queryable, from: number, limit: number): Promise<BlockHeader[]> {
  const rows = await q.query<{ height: number; hash: string; merkle_root: string }>(
    'SELECT height, hash, merkle_root FROM block_headers WHERE current AND height >= $1 ORDER BY height LIMIT $2',
    [from, limit],
  );
  return rows.map((r) => ({ height: r.height, hash: r.hash, merkleRoot: r.merkle_root }));
}

/** Where the change feed says a transaction is: its block when mined, and its raw bytes. */
export async function recordPlaces(
  q: Queryable,
  txids: readonly string[],
): Promise<
  Map<string, { readonly raw: Uint8Array; readonly blockHash: string | null; readonly failed: boolean }>
> {
  const out = new Map<string, { raw: Uint8Array; blockHash: string | null; failed: boolean }>();
  if (txids.length === 0) return out;
  const rows = await q.query<{ txid: string; raw_tx: Uint8Array; state: string; blk_hash: string }>(
    'SELECT txid, raw_tx, state, blk_hash FROM transactions WHERE txid = ANY($1::text[])',
    [[...txids]],
  );
  for (const r of rows)
    out.set(r.txid, {
      raw: r.raw_tx,
      blockHash: r.state === 'mined' && r.blk_hash !== '' ? r.blk_hash : null,
      failed: r.state === 'failed',
    });
  return out;
}
