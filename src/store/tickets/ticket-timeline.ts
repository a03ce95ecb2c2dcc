// Tickets over time for the console: how many were created in each bucket, by their status
// now, and the latest failed ones with their errors.
import { TICKET_STATUSES, type TicketStatus } from '../../domain/ticket-state.js';
import { type TimeBuckets, timeBuckets } from '../../domain/time-buckets.js';
import type { Queryable } from '../db/db.js';

export interface TicketBucket {
  /** Unix seconds: the start of the bucket. */
  readonly at: number;
  readonly counts: Record<TicketStatus, number>;
}

export interface FailedTicket {
  readonly id: string;
  readonly txid: string;
  readonly errors: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

const zero = () => Object.fromEntries(TICKET_STATUSES.map((s) => [s, 0])) as Record<TicketStatus, number>;

export async function ticketTimeline(
  q: Queryable,
  now: Date,
  windowSeconds: number,
  maxBuckets = 60,
): Promise<{ buckets: TimeBuckets; points: TicketBucket[] }> {
  const nowSeconds = now.getTime() / 1000;
  const first = await q.query<{ t: string | null }>(
    'SELECT floor(extract(epoch FROM min(created_at)))::text AS t FROM tickets WHERE created_at >= to_timestamp($1)',
    [nowSeconds - windowSeconds],
  );
  const firstSeconds = first[0]?.t == null ? nowSeconds : Number(first[0].t);
  const buckets = timeBuckets(firstSeconds, nowSeconds, maxBuckets);
  const rows = await q.query<{ bucket: number; status: string; n: string }>(
    `SELECT floor((extract(epoch FROM created_at) - $1) / $2)::int AS bucket, status, count(*)::text AS n
       FROM tickets WHERE created_at >= to_timestamp($1)
      GROUP BY 1, 2`,
    [buckets.start, buckets.width],
  );
  const points: TicketBucket[] = Array.from({ length: buckets.count }, (_, i) => ({
    at: buckets.start + i * buckets.width,
    counts: zero(),
  }));
  for (const row of rows) {
    const point = points[Math.min(row.bucket, buckets.count - 1)];
    if (point !== undefined && (TICKET_STATUSES as readonly string[]).includes(row.status)) {
      point.counts[row.status as TicketStatus] += Number(row.n);
    }
  }
  return { buckets, points };
}

/** The latest FAILED tickets, newest first. */
export async function failedTickets(q: Queryable, limit: number): Promise<FailedTicket[]> {
  const rows = await q.query<{
    id: string;
    txid: string;
    errors: string | null;
    created_at: Date;
    updated_at: Date;
  }>(
    `SELECT id, txid, errors, created_at, updated_at FROM tickets WHERE status = 'FAILED'
      ORDER BY updated_at DESC, id DESC LIMIT $1`,
    [limit],
  );
  return rows.map((r) => ({
    id: r.id,
    txid: r.txid,
    errors: r.errors,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }));
}
