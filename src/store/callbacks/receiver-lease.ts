// What the leases of both outboxes (ticket callbacks, callback-outbox.ts; address webhooks,
// subscriptions/subscription-events.ts) share: a receiver is named by its URL's origin, and a
// lease takes due events oldest first but at most each receiver's room in the deliverer's hand
// (callbacks/receiver-room.ts), none of the receivers it has no room for. One receiver's backlog
// so never fills a hand while other receivers' events wait.
import type { SqlValue } from '../db/db.js';

export interface LeaseRequest {
  /** Who holds the lease (one name per deliverer). */
  readonly owner: string;
  readonly now: Date;
  readonly leaseMs: number;
  readonly limit: number;
  /** Receivers (origins) to leave alone: this deliverer has enough of theirs in hand. */
  readonly busyOrigins?: readonly string[];
  /** Most events of one receiver in this lease, unless `roomByOrigin` says (default: no limit). */
  readonly perOrigin?: number;
  /** Most events of these receivers in this lease (the deliverer's room for each). */
  readonly roomByOrigin?: ReadonlyMap<string, number>;
}

/**
 * SQL for scheme://host[:port] of a stored URL column (stored normalised by the WHATWG parser,
 * so always with a path, the host in lower case and no default port): one receiver. Both
 * deliverers name receivers by it, so that the busy receivers a deliverer passes to its lease
 * are spelled as the lease spells them.
 */
export function receiverOriginSql(column: string): string {
  return `COALESCE(substring(${column} from '^[a-z][a-z0-9+.-]*://[^/?#]+'), '')`;
}

/**
 * The CTE `chosen`: of the CTE `candidates (id, next_attempt_at, origin)` (locked, in due order,
 * none of the busy receivers ($5), at most $6 of them), the first $4 in due order with at most
 * each receiver's room: $9 for the receivers $8, $7 for the others.
 */
export const CHOSEN_WITHIN_ROOM_SQL = `chosen AS (
       SELECT id FROM (SELECT c.id, c.next_attempt_at, COALESCE(r.room, $7) AS room,
                              row_number() OVER (PARTITION BY c.origin ORDER BY c.next_attempt_at, c.id) AS rank
                         FROM candidates c
                         LEFT JOIN unnest($8::text[], $9::int[]) AS r(origin, room) ON r.origin = c.origin) ranked
        WHERE rank <= room
        ORDER BY next_attempt_at, id
        LIMIT $4
     )`;

/** Parameters $4 to $9 of a lease that uses CHOSEN_WITHIN_ROOM_SQL. */
export function roomParameters(req: LeaseRequest): SqlValue[] {
  const rooms = [...(req.roomByOrigin ?? new Map<string, number>())];
  return [
    req.limit,
    [...(req.busyOrigins ?? [])],
    // A few more candidates than asked for: some may be cut by their receiver's room.
    Math.ceil(req.limit * 1.25) + 8,
    req.perOrigin ?? req.limit,
    rooms.map(([origin]) => origin),
    rooms.map(([, room]) => room),
  ];
}
