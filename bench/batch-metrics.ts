// The submission pipeline's batches as the service's /metrics counts them: per stage (lookup,
// commit), how many batches, their mean size and mean time. Read at the start and the end of a
// run's measured window to see how the batches formed in it (bench:api's process run prints it).
import { EVENT_LOOP_SAMPLE_MS } from '../src/metrics/service-metrics.js';

export interface BatchFigures {
  readonly stage: string;
  readonly batches: number;
  readonly meanSize: number;
  readonly meanMs: number;
  /** Batches that took longer than SLOW_BATCH_SECONDS (a histogram bucket's bound). */
  readonly slow: number;
}

/** A batch this slow holds every transfer behind it (one batch in flight, ADR 0009). */
export const SLOW_BATCH_SECONDS = 0.025;

/** Sum or count of a histogram series in Prometheus text, by its stage label (all outcomes added). */
function series(text: string, name: string, le?: number): Map<string, number> {
  const result = new Map<string, number>();
  const line = new RegExp(`^${name}\\{([^}]*)\\} (\\S+)$`, 'gm');
  for (const [, labels, value] of text.matchAll(line)) {
    if (le !== undefined && !labels!.includes(`le="${le}"`)) continue;
    const stage = /stage="([^"]+)"/.exec(labels!)?.[1];
    if (stage !== undefined) result.set(stage, (result.get(stage) ?? 0) + Number(value));
  }
  return result;
}

/** The batches counted between two scrapes of /metrics (`before` absent: since the start). */
export function batchFiguresOf(metricsText: string, before = ''): BatchFigures[] {
  const between = (name: string, le?: number) => {
    const earlier = series(before, name, le);
    return new Map(
      [...series(metricsText, name, le)].map(([stage, v]) => [stage, v - (earlier.get(stage) ?? 0)]),
    );
  };
  const sizes = between('tokenproxy_submission_batch_size_sum');
  const counts = between('tokenproxy_submission_batch_size_count');
  const seconds = between('tokenproxy_submission_batch_duration_seconds_sum');
  const timed = between('tokenproxy_submission_batch_duration_seconds_count');
  const quick = between('tokenproxy_submission_batch_duration_seconds_bucket', SLOW_BATCH_SECONDS);
  return [...counts].map(([stage, batches]) => ({
    stage,
    batches,
    meanSize: batches === 0 ? 0 : (sizes.get(stage) ?? 0) / batches,
    meanMs: batches === 0 ? 0 : ((seconds.get(stage) ?? 0) * 1000) / batches,
    slow: (timed.get(stage) ?? 0) - (quick.get(stage) ?? 0),
  }));
}

/** The service's /metrics page (Prometheus text). */
export async function scrapeMetrics(serviceUrl: string, authorization: string): Promise<string> {
  const res = await fetch(`${serviceUrl}/metrics`, { headers: { authorization } });
  if (!res.ok) throw new Error(`/metrics answered ${res.status}`);
  return res.text();
}

/** An unlabelled series' value in Prometheus text; NaN when absent. */
export function gaugeValue(metricsText: string, name: string): number {
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metricsText)?.[1] ?? Number.NaN);
}

/**
 * The event loop's lag as prom-client measured it since the previous scrape (its histogram is
 * reset by each) or the start, mean and p99 in ms, net of
 * its sampling interval: prom-client's figures are whole intervals between samples (an idle
 * process reads 20 ms), so what a busy loop added is the figure less the interval.
 */
export function describeEventLoop(metricsText: string): string {
  const lag = (name: string) =>
    Math.max(0, gaugeValue(metricsText, name) * 1000 - EVENT_LOOP_SAMPLE_MS).toFixed(1);
  return `event loop lag beyond its ${EVENT_LOOP_SAMPLE_MS} ms sampling interval: mean ${lag('nodejs_eventloop_lag_mean_seconds')} ms, p99 ${lag('nodejs_eventloop_lag_p99_seconds')} ms, longest ${lag('nodejs_eventloop_lag_max_seconds')} ms`;
}

export function describeBatches(figures: readonly BatchFigures[]): string {
  return figures
    .map(
      (f) =>
        `${f.stage}: ${f.batches} batches, ${f.meanSize.toFixed(1)} transfers and ${f.meanMs.toFixed(1)} ms each, ${f.slow} over ${SLOW_BATCH_SECONDS * 1000} ms`,
    )
    .join('; ');
}
