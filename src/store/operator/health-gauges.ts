// What the alerting gauges read from the database at scrape time (src/metrics/service-gauges.ts):
// how long the oldest ticket has waited in each live status, and the oldest callback event still
// pending. Ages are the database's clock against its own timestamps (no skew between hosts).
// Both read a few rows through partial or status indexes: tickets_status, events_due.
import type { Queryable } from '../db/db.js';

/** Seconds since the oldest ticket in BROADCASTING and in SUCCESS was submitted (0: none). */
export async function oldestLiveTicketAges(q: Queryable): Promise<{ BROADCASTING: number; SUCCESS: number }> {
  const rows = await q.query<{ status: string; age: number | string | null }>(
    `SELECT status, extract(epoch FROM now() - min(created_at))::float8 AS age
       FROM tickets WHERE status IN ('BROADCASTING', 'SUCCESS') GROUP BY status`,
  );
  const ages = { BROADCASTING: 0, SUCCESS: 0 };
  for (const row of rows)
    if (row.status === 'BROADCASTING' || row.status === 'SUCCESS')
      ages[row.status] = Math.max(0, Number(row.age ?? 0));
  return ages;
}

/** Seconds since the oldest callback event still pending was made (0: none pending). */
export async function oldestPendingEventAge(q: Queryable): Promise<number> {
  const rows = await q.query<{ age: number | string | null }>(
    `SELECT extract(epoch FROM now() - min(created_at))::float8 AS age FROM events WHERE state = 'pending'`,
  );
  return Math.max(0, Number(rows[0]?.age ?? 0));
}
