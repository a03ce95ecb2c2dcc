// SUCCESS tickets waiting for a block (docs/adr/0008). A ticket in the mempool has only a late
// backstop look of its own; what makes it due sooner is a block: the first verdict that shows a
// block not seen before makes every waiting ticket due (wakeWaitingTickets), and each poll a few
// waiting tickets are made due as canaries (wakeCanaries), so that a block nobody pushes is
// found by asking. Both lock with SKIP LOCKED: a ticket a verdict writer holds is being written
// anyway, and is reached by the next block or its backstop.
import type { Queryable } from './db.js';

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
 * Makes due at `dueAt` up to `limit` SUCCESS tickets submitted by `submittedBy`, after `after` in
 * submission order, that are not due by then already. Returns how many it woke and where the
 * walk goes on from; null: nothing was left after `after`.
 */
export async function wakeWaitingTickets(
  q: Queryable,
  submittedBy: Date,
  dueAt: Date,
  after: WaitingCursor,
  limit: number,
): Promise<{ readonly woken: number; readonly next: WaitingCursor } | null> {
  const rows = await q.query<{ created_at: Date; id: string; n: number }>(
    `WITH page AS MATERIALIZED (
       SELECT id, created_at FROM tickets
        WHERE status = 'SUCCESS' AND created_at <= $1 AND (created_at, id) > ($3::timestamptz, $4::uuid)
          AND next_check_at > $2
        ORDER BY created_at, id LIMIT $5 FOR UPDATE SKIP LOCKED
     ), woken AS (
       UPDATE tickets k SET next_check_at = $2 FROM page p WHERE k.id = p.id RETURNING p.created_at, p.id
     )
     SELECT w.created_at, w.id, (SELECT count(*) FROM woken)::int AS n
       FROM woken w ORDER BY w.created_at DESC, w.id DESC LIMIT 1`,
    [submittedBy, dueAt, after.createdAt, after.id, limit],
  );
  const last = rows[0];
  if (last === undefined) return null;
  return { woken: last.n, next: { createdAt: last.created_at, id: last.id } };
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
