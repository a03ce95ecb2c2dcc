// The blocks the tracker watches for reorgs (docs/adr/0006): one row per block a verdict showed a
// ticket mined in, looked at every poll through one of its transactions (the probe), in place of
// every ticket in it, until it is final. A block final when first seen has its row for one look:
// a new block's first look has the tracker ask about the tickets in the mempool
// (docs/adr/0008). A verdict writer inserts a block's row in its own transaction; the sweep's
// writes to a block's tickets and to its row are separate transactions: a sweep then never holds
// a block row while it waits for a ticket that a verdict writer has locked, while that writer
// waits to insert the same row.
import type { Db, Queryable } from '../db/db.js';

/** A block to watch: where a ticket was seen mined, and that ticket's transaction. */
export interface BlockToWatch {
  readonly hash: string;
  readonly height: number;
  readonly probeTxid: string;
}

/** A watched block claimed by a tracker's sweep. */
export interface DueBlock extends BlockToWatch {
  /** Failed looks in a row. */
  readonly failures: number;
  /** When it was first seen, until its first look had the mempool asked about; then null. */
  readonly seenAt: Date | null;
}

/**
 * Watches `blocks` from `at` on, those not watched already (a block's first row stays, with its
 * probe and schedule), each new row marked as seen at `seenAt`: its first look has the tracker
 * ask about the tickets in the mempool (docs/adr/0008). Inserted in hash order (the statement's
 * ORDER BY), the one order every writer inserts them in.
 */
export async function watchBlocks(
  q: Queryable,
  blocks: readonly BlockToWatch[],
  at: Date,
  seenAt: Date,
): Promise<void> {
  const byHash = new Map<string, BlockToWatch>();
  for (const block of blocks) if (!byHash.has(block.hash)) byHash.set(block.hash, block);
  if (byHash.size === 0) return;
  const distinct = [...byHash.values()];
  await q.query(
    `INSERT INTO watched_blocks (blk_hash, height, probe_txid, next_check_at, seen_at)
     SELECT u.hash, u.height, u.probe, $1, $5
       FROM unnest($2::text[], $3::int[], $4::text[]) AS u(hash, height, probe)
      ORDER BY u.hash
     ON CONFLICT (blk_hash) DO NOTHING`,
    [
      at,
      distinct.map((b) => b.hash),
      distinct.map((b) => b.height),
      distinct.map((b) => b.probeTxid),
      seenAt,
    ],
  );
}

/** Claims up to `limit` blocks due at `now` (none leased by another tracker) until `leaseUntil`. */
export async function claimDueBlocks(
  q: Queryable,
  now: Date,
  leaseUntil: Date,
  limit: number,
): Promise<DueBlock[]> {
  const rows = await q.query<{
    blk_hash: string;
    height: number;
    probe_txid: string;
    failures: number;
    seen_at: Date | null;
  }>(
    // A materialized pick, as claimDueTickets does: a LIMIT ... SKIP LOCKED pick run once.
    `WITH picked AS MATERIALIZED (
       SELECT blk_hash FROM watched_blocks
        WHERE next_check_at <= $1 AND (lease_until IS NULL OR lease_until < $1)
        ORDER BY next_check_at LIMIT $3 FOR UPDATE SKIP LOCKED
     )
     UPDATE watched_blocks w SET lease_until = $2 FROM picked p WHERE w.blk_hash = p.blk_hash
     RETURNING w.blk_hash, w.height, w.probe_txid, w.failures, w.seen_at`,
    [now, leaseUntil, limit],
  );
  return rows.map((r) => ({
    hash: r.blk_hash,
    height: r.height,
    probeTxid: r.probe_txid,
    failures: r.failures,
    seenAt: r.seen_at,
  }));
}

/** New blocks whose first look is asking about the mempool's tickets: not asked again. */
export async function markMempoolAsked(q: Queryable, hashes: readonly string[]): Promise<void> {
  if (hashes.length === 0) return;
  await q.query('UPDATE watched_blocks SET seen_at = NULL WHERE blk_hash = ANY($1::text[])', [hashes]);
}

/** Blocks that still stand and are not final: looked at again at `poll`. */
export async function keepWatchingBlocks(q: Queryable, hashes: readonly string[], poll: Date): Promise<void> {
  if (hashes.length === 0) return;
  await q.query(
    `UPDATE watched_blocks SET next_check_at = $1, lease_until = NULL, failures = 0
      WHERE blk_hash = ANY($2::text[])`,
    [poll, hashes],
  );
}

/** After failed looks: each block looked at again at its `at`, its failures in a row counted. */
export async function backOffBlocks(
  q: Queryable,
  blocks: readonly { readonly hash: string; readonly at: Date }[],
): Promise<void> {
  if (blocks.length === 0) return;
  await q.query(
    `UPDATE watched_blocks w SET next_check_at = u.at::timestamptz, lease_until = NULL, failures = w.failures + 1
       FROM unnest($1::text[], $2::text[]) AS u(hash, at)
      WHERE w.blk_hash = u.hash`,
    [blocks.map((b) => b.hash), blocks.map((b) => b.at.toISOString())],
  );
}

/** Blocks no longer watched (final, or left the chain): their rows go. */
export async function forgetBlocks(q: Queryable, hashes: readonly string[]): Promise<void> {
  if (hashes.length === 0) return;
  await q.query('DELETE FROM watched_blocks WHERE blk_hash = ANY($1::text[])', [hashes]);
}

/**
 * Tickets a settle or a recheck writes per statement: a final block of a busy ledger holds many
 * thousands, and one statement for all of them would hold their rows, and PGlite's one
 * connection, for as long as it takes.
 */
export const TICKETS_PER_STATEMENT = 500;

/**
 * The MINED tickets recorded in `hashes` (final blocks): never looked at again. Tickets already
 * settled are not written again; `perStatement` at a time, each chunk a transaction of two
 * statements. The first locks the chunk's tickets; the second settles those whose record, read
 * once they are held, still names one of the blocks. A verdict batch moves a record only while
 * it holds its ticket, and PostgreSQL, when a lock wait ends, checks the locked ticket's row
 * again but not the record the statement joined before the wait: one statement would settle a
 * ticket that a batch moved out of the block meanwhile (a reorg, a stale look) in the block it
 * left.
 */
export async function settleTicketsIn(
  db: Pick<Db, 'transaction'>,
  hashes: readonly string[],
  perStatement = TICKETS_PER_STATEMENT,
): Promise<void> {
  if (hashes.length === 0) return;
  await inChunks(perStatement, (limit) =>
    db.transaction(async (tx) => {
      const held = await tx.query<{ id: string }>(ticketsInBlocks('AND k.next_check_at IS NOT NULL'), [
        hashes,
        limit,
      ]);
      if (held.length > 0)
        await tx.query(
          `WITH settled AS (${ticketsInBlocks('AND k.id = ANY($3::uuid[])')})
           UPDATE tickets k SET next_check_at = NULL, failures = 0 FROM settled s WHERE k.id = s.id`,
          [hashes, limit, held.map((t) => t.id)],
        );
      return held;
    }),
  );
}

/**
 * The MINED tickets recorded in `hashes` (blocks that left the chain): due at `now`, each asked
 * alone; `perStatement` at a time. One statement a chunk: a ticket a verdict batch moved to
 * another block while this waited for it is only asked about once more.
 */
export async function recheckTicketsIn(
  q: Queryable,
  hashes: readonly string[],
  now: Date,
  perStatement = TICKETS_PER_STATEMENT,
): Promise<void> {
  if (hashes.length === 0) return;
  await inChunks(perStatement, (limit) =>
    q.query(
      `WITH rechecked AS (${ticketsInBlocks('AND k.next_check_at IS DISTINCT FROM $3')})
       UPDATE tickets k SET next_check_at = $3 FROM rechecked r WHERE k.id = r.id RETURNING k.id`,
      [hashes, limit, now],
    ),
  );
}

/** Runs `write` (which takes at most `limit` rows and returns them) until it takes fewer. */
async function inChunks(limit: number, write: (limit: number) => Promise<readonly unknown[]>): Promise<void> {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`invalid chunk size ${limit}`);
  while ((await write(limit)).length === limit) {
    // the next chunk: the rows written no longer match
  }
}

/**
 * The MINED tickets recorded in the blocks `$1`, at most `$2` of them, locked in id order: the
 * order a batch of verdicts locks tickets in (store/tickets/ticket-writes.ts), so a sweep settling a
 * block and a batch holding some of its tickets wait for each other in one direction only, never
 * in a cycle.
 */
function ticketsInBlocks(andAlso: string): string {
  return `SELECT k.id FROM tickets k JOIN transactions x ON x.txid = k.txid
           WHERE x.blk_hash = ANY($1::text[]) AND x.state = 'mined' AND k.status = 'MINED' ${andAlso}
           ORDER BY k.id LIMIT $2 FOR UPDATE OF k`;
}
