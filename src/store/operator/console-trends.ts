// Trends for the console's funding and deliveries panels: the funding pool's available outputs
// at the end of each time bucket, and callback delivery attempts per bucket (how many, how many
// succeeded, the median latency). For the console, not hot paths: the funding trend reads the
// whole pool table once per bucket.
//
// An output counts as available at a moment when it was created before it and was not yet
// taken by a ticket then: an output a ticket holds or spent is taken from that ticket's
// creation (its reservation), an output released by a failed ticket reads as available
// throughout (the release forgets the ticket), and a spent output with no ticket left is
// not counted.
import { type TimeBuckets, timeBuckets } from '../../domain/time-buckets.js';
import type { Queryable } from '../db/db.js';

export interface FundingPoint {
  /** Unix seconds: the end of the bucket. */
  readonly at: number;
  readonly available: number;
}

export interface DeliveryPoint {
  /** Unix seconds: the start of the bucket. */
  readonly at: number;
  readonly attempts: number;
  readonly succeeded: number;
  /** Median latency of the bucket's attempts; null when none. */
  readonly p50Ms: number | null;
}

export interface Trend<P> {
  readonly buckets: TimeBuckets;
  readonly points: readonly P[];
}

/** The first row's time in the window; `none` when the window has no row. */
async function firstSeconds(q: Queryable, sql: string, since: number, none: number): Promise<number> {
  const rows = await q.query<{ t: string | null }>(sql, [since]);
  const t = rows[0]?.t;
  return t == null ? none : Math.max(Number(t), since);
}

/** Available pool outputs at the end of each bucket over the last `windowSeconds`. */
export async function fundingTrend(
  q: Queryable,
  now: Date,
  windowSeconds: number,
  maxBuckets = 60,
): Promise<Trend<FundingPoint>> {
  const nowSeconds = now.getTime() / 1000;
  const since = nowSeconds - windowSeconds;
  const first = await firstSeconds(
    q,
    'SELECT floor(extract(epoch FROM min(created_at)))::text AS t FROM funding_outputs WHERE created_at >= to_timestamp($1)',
    since,
    nowSeconds,
  );
  // Outputs older than the window count from its start.
  const buckets = timeBuckets(Math.min(first, nowSeconds), nowSeconds, maxBuckets);
  const rows = await q.query<{ i: number; n: string }>(
    `WITH edges AS (
       SELECT i, to_timestamp($1::float8 + (i + 1) * $2::float8) AS t FROM generate_series(0, $3::int - 1) AS i
     )
     SELECT e.i AS i,
            count(f.txid) FILTER (
              WHERE f.created_at < e.t
                AND (f.state = 'available' OR (k.created_at IS NOT NULL AND k.created_at >= e.t))
            )::text AS n
       FROM edges e
       CROSS JOIN funding_outputs f
       LEFT JOIN tickets k ON k.id = f.reserved_by
      GROUP BY e.i`,
    [buckets.start, buckets.width, buckets.count],
  );
  const counts = new Map(rows.map((r) => [Number(r.i), Number(r.n)]));
  const points = Array.from({ length: buckets.count }, (_, i) => ({
    at: Math.min(buckets.start + (i + 1) * buckets.width, Math.ceil(nowSeconds)),
    available: counts.get(i) ?? 0,
  }));
  return { buckets, points };
}

/** Delivery attempts per bucket over the last `windowSeconds`: count, 2xx count, median latency. */
export async function deliveryTrend(
  q: Queryable,
  now: Date,
  windowSeconds: number,
  maxBuckets = 48,
): Promise<Trend<DeliveryPoint>> {
  const nowSeconds = now.getTime() / 1000;
  const since = nowSeconds - windowSeconds;
  const first = await firstSeconds(
    q,
    'SELECT floor(extract(epoch FROM min(attempted_at)))::text AS t FROM delivery_attempts WHERE attempted_at >= to_timestamp($1)',
    since,
    // No attempt in the window: the whole window, empty (not a second-wide axis at now).
    since,
  );
  const buckets = timeBuckets(first, nowSeconds, maxBuckets);
  const rows = await q.query<{ bucket: number; n: string; ok: string; p50: number | null }>(
    `SELECT floor((extract(epoch FROM attempted_at) - $1) / $2)::int AS bucket, count(*)::text AS n,
            count(*) FILTER (WHERE status_code BETWEEN 200 AND 299)::text AS ok,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms) AS p50
       FROM delivery_attempts WHERE attempted_at >= to_timestamp($1)
      GROUP BY 1`,
    [buckets.start, buckets.width],
  );
  const points: DeliveryPoint[] = Array.from({ length: buckets.count }, (_, i) => ({
    at: buckets.start + i * buckets.width,
    attempts: 0,
    succeeded: 0,
    p50Ms: null,
  }));
  for (const row of rows) {
    const i = Math.min(Number(row.bucket), buckets.count - 1);
    if (i < 0) continue;
    points[i] = {
      at: points[i]!.at,
      attempts: Number(row.n),
      succeeded: Number(row.ok),
      p50Ms: row.p50 === null ? null : Math.round(row.p50),
    };
  }
  return { buckets, points };
}
