// Supply over time for the console: every token output adds its amount to its class
// (treasury, circulating, burned) when its transaction is created and takes it away when the
// transaction spending it is, so the running sum at the last bucket is today's supply split.
// Reads the whole output table: for the console, not hot paths.
import { type TimeBuckets, timeBuckets } from '../../domain/time-buckets.js';
import type { Queryable } from '../db/db.js';

export interface SupplyPoint {
  /** Unix seconds: the end of the bucket. */
  readonly at: number;
  readonly circulating: bigint;
  readonly treasury: bigint;
  readonly burned: bigint;
}

export interface SupplyHistory {
  readonly buckets: TimeBuckets;
  readonly points: readonly SupplyPoint[];
}

const CLASS = `CASE WHEN o.op = 'burn' OR o.owner = $2 THEN 'burned'
                    WHEN o.owner = $1 THEN 'treasury' ELSE 'circulating' END`;

/** The split at the end of each bucket over the last `windowSeconds` (all of it when shorter). */
export async function supplyHistory(
  q: Queryable,
  token: { mintAddress: string; burnAddress: string },
  now: Date,
  windowSeconds: number,
  maxBuckets = 60,
): Promise<SupplyHistory> {
  const nowSeconds = now.getTime() / 1000;
  const first = await q.query<{ t: string | null }>(
    'SELECT floor(extract(epoch FROM min(created_at)))::text AS t FROM transactions',
  );
  const firstSeconds = first[0]?.t == null ? nowSeconds : Number(first[0].t);
  const buckets = timeBuckets(Math.max(firstSeconds, nowSeconds - windowSeconds), nowSeconds, maxBuckets);
  const rows = await q.query<{ bucket: number; class: string; delta: string }>(
    `WITH moves AS (
       SELECT o.txid AS txid, ${CLASS} AS class, o.amount AS delta FROM token_outputs o
       UNION ALL
       SELECT o.spent_by, ${CLASS}, -o.amount FROM token_outputs o WHERE o.spent_by IS NOT NULL
     )
     SELECT greatest(-1, floor((extract(epoch FROM t.created_at) - $3) / $4))::int AS bucket,
            m.class, sum(m.delta)::text AS delta
       FROM moves m JOIN transactions t ON t.txid = m.txid
      GROUP BY 1, 2`,
    [token.mintAddress, token.burnAddress, buckets.start, buckets.width],
  );
  const deltas = new Map<number, { circulating: bigint; treasury: bigint; burned: bigint }>();
  for (const row of rows) {
    const bucket = Math.min(row.bucket, buckets.count - 1);
    const d = deltas.get(bucket) ?? { circulating: 0n, treasury: 0n, burned: 0n };
    d[row.class as 'circulating' | 'treasury' | 'burned'] += BigInt(row.delta);
    deltas.set(bucket, d);
  }
  const running = { circulating: 0n, treasury: 0n, burned: 0n };
  const add = (bucket: number) => {
    const d = deltas.get(bucket);
    if (d === undefined) return;
    running.circulating += d.circulating;
    running.treasury += d.treasury;
    running.burned += d.burned;
  };
  add(-1);
  const points: SupplyPoint[] = [];
  for (let i = 0; i < buckets.count; i++) {
    add(i);
    points.push({ at: buckets.start + (i + 1) * buckets.width, ...running });
  }
  return { buckets, points };
}
