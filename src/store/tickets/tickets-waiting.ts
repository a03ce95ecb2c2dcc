// SUCCESS tickets waiting for a block (docs/adr/0008). A ticket in the mempool has only a late
// backstop look of its own. A block not seen before has the tracker claim every waiting ticket
// (claimWaitingTickets, a page at a time, at the block's first look) and ask about it, and each
// poll a few waiting tickets are made due as canaries (wakeCanaries), so that a block nobody
// pushes is found by asking. Both lock with SKIP LOCKED: a ticket a verdict writer holds is
// being written anyway, and is reached by the next block, a canary or its backstop.
import type { Queryable } from '../db/db.js';
import { CLAIMED_COLUMNS, type DueRow, type DueTicket, dueTicketFrom } from './ticket-tracking.js';

/** Where a walk of the waiting tickets stands: after this (created_at, id). */
export interface WaitingCursor {
  readonly createdAt: Date;
  readonly id: string;
}

/** Before every ticket. */
export const FIRST_WAITING: WaitingCursor = {
  createdAt: new Date(0),
  id: '00000000-0000-0000-0000-000000000000',
};

/**
 * Claims, as the ticket sweep does (a lease until `leaseUntil`, the attempt counted), up to
 * `limit` SUCCESS tickets submitted by `submittedBy`, after `after` in submission order, none
 * leased by another tracker. Returns them and where the walk goes on from; null: none was left.
 */
export async function claimWaitingTickets(
  q: Queryable,
  submittedBy: Date,
  now: Date,
  leaseUntil: Date,
  after: WaitingCursor,
  limit: number,
): Promise<{ readonly claimed: DueTicket[]; readonly next: WaitingCursor } | null> {
  const rows = await q.query<DueRow & { created_at: Date }>(
    `WITH picked AS MATERIALIZED (
       SELECT id FROM tickets
        WHERE status = 'SUCCESS' AND created_at <= $1 AND (created_at, id) > ($4::timestamptz, $5::uuid)
          AND (lease_until IS NULL OR lease_until < $2)
        ORDER BY created_at, id LIMIT $6 FOR UPDATE SKIP LOCKED
     ), claimed AS (
       UPDATE tickets t SET lease_until = $3, attempts = t.attempts + 1
         FROM picked p WHERE t.id = p.id
        RETURNING ${CLAIMED_COLUMNS}, t.created_at)
     SELECT c.*, x.blk_hash FROM claimed c LEFT JOIN transactions x ON x.txid = c.txid AND x.state = 'mined'
      ORDER BY c.created_at, c.id`,
    [submittedBy, now, leaseUntil, after.createdAt, after.id, limit],
  );
  const last = rows.at(-1);
  if (last === undefined) return null;
  return { claimed: rows.map(dueTicketFrom), next: { createdAt: last.created_at, id: last.id } };
}

/**
 * The canaries, due at `now`: the `oldest` longest-waiting SUCCESS tickets, and the `recent`
 * newest of those submitted by `recentBefore` (the likeliest to be in the next block, and a
 * different few each poll, so a ticket stuck in the mempool does not blind the watch). Returns
 * how many it made due (those due already are left as they are).
 */
export async function wakeCanaries(
  q: Queryable,
  now: Date,
  recentBefore: Date,
  oldest: number,
  recent: number,
): Promise<number> {
  const rows = await q.query(
    `WITH canaries AS MATERIALIZED (
       SELECT id FROM tickets
        WHERE id IN (
                (SELECT id FROM tickets WHERE status = 'SUCCESS' ORDER BY created_at, id LIMIT $3)
                UNION
                (SELECT id FROM tickets WHERE status = 'SUCCESS' AND created_at <= $2
                  ORDER BY created_at DESC, id DESC LIMIT $4))
          AND status = 'SUCCESS' AND next_check_at > $1
        FOR UPDATE SKIP LOCKED
     )
     UPDATE tickets k SET next_check_at = $1 FROM canaries c WHERE k.id = c.id RETURNING k.id`,
    [now, recentBefore, oldest, recent],
  );
  return rows.length;
}
