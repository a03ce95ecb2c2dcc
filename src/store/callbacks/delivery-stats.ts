// Callback deliveries for the console: attempts since a moment (success rate, latency
// percentiles), events by state, and the receivers whose attempts fail, by origin.

import type { Queryable } from '../db/db.js';
import type { EventState } from './callback-deliveries.js';
import { outboxEventCounts } from './event-counts.js';

export interface FailingReceiver {
  readonly origin: string;
  readonly failures: number;
  readonly attempts: number;
  readonly lastError: string | null;
  readonly lastAt: Date;
}

export interface DeliveryStats {
  readonly attempts: number;
  readonly succeeded: number;
  /** Milliseconds; null when no attempt was made. */
  readonly latency: { readonly p50: number; readonly p90: number; readonly p99: number } | null;
  readonly events: Record<EventState, number>;
  readonly failingReceivers: readonly FailingReceiver[];
}

const OK = 'a.status_code BETWEEN 200 AND 299';

export async function deliveryStats(q: Queryable, since: Date, maxReceivers = 10): Promise<DeliveryStats> {
  const [totals, events, receivers] = await Promise.all([
    q.query<{ n: string; ok: string; p50: number | null; p90: number | null; p99: number | null }>(
      `SELECT count(*)::text AS n, count(*) FILTER (WHERE ${OK})::text AS ok,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY a.latency_ms) AS p50,
              percentile_cont(0.9) WITHIN GROUP (ORDER BY a.latency_ms) AS p90,
              percentile_cont(0.99) WITHIN GROUP (ORDER BY a.latency_ms) AS p99
         FROM delivery_attempts a WHERE a.attempted_at >= $1`,
      [since],
    ),
    outboxEventCounts(q),
    q.query<{ url: string | null; n: string; failed: string; last_at: Date; last_error: string | null }>(
      `SELECT t.callback_url AS url, count(*)::text AS n, count(*) FILTER (WHERE NOT coalesce(${OK}, false))::text AS failed,
              max(a.attempted_at) FILTER (WHERE NOT coalesce(${OK}, false)) AS last_at,
              (array_agg(coalesce(a.error, 'HTTP ' || a.status_code) ORDER BY a.attempted_at DESC, a.id DESC)
                 FILTER (WHERE NOT coalesce(${OK}, false)))[1] AS last_error
         FROM delivery_attempts a JOIN events e ON e.id = a.event_id JOIN tickets t ON t.id = e.ticket_id
        WHERE a.attempted_at >= $1
        GROUP BY t.callback_url`,
      [since],
    ),
  ]);
  const total = totals[0];
  const attempts = Number(total?.n ?? 0);
  const byOrigin = new Map<string, FailingReceiver>();
  for (const row of receivers) {
    const failures = Number(row.failed);
    if (failures === 0) continue;
    const origin = originOf(row.url);
    const seen = byOrigin.get(origin);
    const later = seen === undefined || row.last_at > seen.lastAt;
    byOrigin.set(origin, {
      origin,
      failures: (seen?.failures ?? 0) + failures,
      attempts: (seen?.attempts ?? 0) + Number(row.n),
      lastError: later ? row.last_error : (seen?.lastError ?? null),
      lastAt: later ? row.last_at : seen.lastAt,
    });
  }
  return {
    attempts,
    succeeded: Number(total?.ok ?? 0),
    latency:
      attempts === 0
        ? null
        : {
            p50: Math.round(total?.p50 ?? 0),
            p90: Math.round(total?.p90 ?? 0),
            p99: Math.round(total?.p99 ?? 0),
          },
    events,
    failingReceivers: [...byOrigin.values()].sort((a, b) => b.failures - a.failures).slice(0, maxReceivers),
  };
}

function originOf(url: string | null): string {
  if (url === null) return '(none)';
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid url)';
  }
}
