// The tracker's statements on tickets (usecases/track/track-tickets.ts): claiming the due ones with a
// lease (FOR UPDATE SKIP LOCKED, so several trackers share the work without doing any twice),
// putting MINED tickets whose block still stands off to their backstop, and the back-off after
// failed looks.
// Each one statement for a whole batch; those that write many tickets lock them in id order
// first, the order a batch of verdicts locks them in (store/tickets/ticket-writes.ts), so none waits in a
// cycle with another.
import type { TicketStatus } from '../../domain/ticket-state.js';
import type { Db, Queryable } from '../db/db.js';
import { ticketRawTx } from './ticket-row.js';

/** A ticket claimed by a tracker's sweep. */
export interface DueTicket {
  readonly id: string;
  readonly txid: string;
  readonly rawTx: Uint8Array;
  readonly status: TicketStatus;
  readonly attempts: number;
  /** Failed looks in a row (reset by any status written). */
  readonly failures: number;
  /** The block its record is mined in (null unless mined). */
  readonly blockHash: string | null;
}

export interface DueRow {
  id: string;
  txid: string;
  raw_tx: Uint8Array;
  status: TicketStatus;
  attempts: number;
  failures: number;
  blk_hash: string | null;
  [column: string]: unknown;
}

/**
 * Claims up to `limit` tickets due at `now` (none leased by another tracker), leasing them
 * until `leaseUntil` and counting the attempt; each with the block its record is mined in.
 */
export async function claimDueTickets(
  q: Queryable,
  now: Date,
  leaseUntil: Date,
  limit: number,
): Promise<DueTicket[]> {
  const rows = await q.query<DueRow>(
    // The pick is a materialized CTE: as an IN subquery PostgreSQL may run it once per outer
    // row, and a LIMIT ... SKIP LOCKED pick can answer other rows each time (claiming more).
    `WITH picked AS MATERIALIZED (
       SELECT id FROM tickets
        WHERE next_check_at <= $1 AND (lease_until IS NULL OR lease_until < $1)
        ORDER BY next_check_at LIMIT $3 FOR UPDATE SKIP LOCKED
     ), claimed AS (
       UPDATE tickets t SET lease_until = $2, attempts = t.attempts + 1
         FROM picked p WHERE t.id = p.id
        RETURNING ${CLAIMED_COLUMNS})
     SELECT c.*, x.blk_hash FROM claimed c LEFT JOIN transactions x ON x.txid = c.txid AND x.state = 'mined'`,
    [now, leaseUntil, limit],
  );
  return rows.map(dueTicketFrom);
}

/** The columns a claim returns (CLAIMED_COLUMNS, with the mined record's blk_hash), as a DueTicket. */
export function dueTicketFrom(r: DueRow): DueTicket {
  return {
    id: r.id,
    txid: r.txid,
    rawTx: r.raw_tx,
    status: r.status,
    attempts: r.attempts,
    failures: r.failures,
    blockHash: r.blk_hash,
  };
}

/** What a claim's UPDATE returns, for dueTicketFrom (joined with the record's blk_hash). */
export const CLAIMED_COLUMNS = `t.id, t.txid, ${ticketRawTx('t')} AS raw_tx, t.status, t.attempts, t.failures`;

/**
 * MINED tickets whose block still stands: looked at again on their own only at `backstop`
 * (`watch`: the tracker watches their block, docs/adr/0006), or never (final). A ticket whose
 * record moved meanwhile (a push) is left as it is. Two statements in a transaction: the tickets
 * are locked first, and their records read once they are held. A verdict batch moves a record
 * only while it holds its ticket, and one statement waiting for that ticket would go on with the
 * record it read before the wait (watched-blocks.ts, settleTicketsIn).
 */
export async function keepWatchingMined(
  db: Pick<Db, 'transaction'>,
  tickets: readonly { readonly id: string; readonly blockHash: string; readonly watch: boolean }[],
  backstop: Date,
): Promise<void> {
  if (tickets.length === 0) return;
  await db.transaction(async (tx) => {
    await tx.query('SELECT id FROM tickets WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE', [
      tickets.map((t) => t.id),
    ]);
    await tx.query(
      `UPDATE tickets k SET next_check_at = CASE WHEN u.watch = 1 THEN $1::timestamptz ELSE NULL END,
                            lease_until = NULL, failures = 0
         FROM unnest($2::uuid[], $3::text[], $4::int[]) AS u(id, hash, watch), transactions x
        WHERE k.id = u.id AND x.txid = k.txid
          AND k.status = 'MINED' AND x.state = 'mined' AND x.blk_hash = u.hash`,
      [
        backstop,
        tickets.map((t) => t.id),
        tickets.map((t) => t.blockHash),
        tickets.map((t) => (t.watch ? 1 : 0)),
      ],
    );
  });
}

/**
 * After failed looks: each ticket looked at again at its `at`, its lease released and its
 * failures in a row counted (tickets that have ended are left alone).
 */
export async function rescheduleFailedLooks(
  q: Queryable,
  tickets: readonly { readonly id: string; readonly at: Date }[],
): Promise<void> {
  await q.query(
    `WITH failed AS (
       SELECT k.id, u.at FROM unnest($1::uuid[], $2::text[]) AS u(id, at) JOIN tickets k ON k.id = u.id
        WHERE k.next_check_at IS NOT NULL ORDER BY k.id FOR UPDATE OF k
     )
     UPDATE tickets k SET next_check_at = f.at::timestamptz, lease_until = NULL, failures = k.failures + 1
       FROM failed f WHERE k.id = f.id`,
    [tickets.map((t) => t.id), tickets.map((t) => t.at.toISOString())],
  );
}
