// The submitters of the transfer benchmarks: CONCURRENCY loops over keep-alive connections, each
// posting the next prepared transfer (POST /v2/transfer) until the time is up or none is left.
// A refusal stops the run: every prepared transfer is valid, so a refusal is a bug to see.
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';

export interface SubmitPlan {
  readonly url: string;
  /** `Authorization` header value. */
  readonly authorization: string;
  /** Request bodies (JSON), each sent once, in order. */
  readonly bodies: readonly string[];
  readonly seconds: number;
  readonly concurrency: number;
}

export interface SubmitRun {
  readonly ticketIds: string[];
  /** Milliseconds from request to answer, sorted ascending. */
  readonly latencies: number[];
  readonly seconds: number;
  /** The prepared transfers ran out before the time was up. */
  readonly ranOut: boolean;
}

export async function submitTransfers(plan: SubmitPlan): Promise<SubmitRun> {
  const pool = new Pool(plan.url, { connections: plan.concurrency, pipelining: 1 });
  const latencies: number[] = [];
  const ticketIds: string[] = [];
  let next = 0;
  const started = performance.now();
  const deadline = started + plan.seconds * 1000;
  const submitter = async () => {
    while (performance.now() < deadline && next < plan.bodies.length) {
      const body = plan.bodies[next++]!;
      const t = performance.now();
      const res = await pool.request({
        path: '/v2/transfer',
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: plan.authorization },
        body,
      });
      const text = await res.body.text();
      latencies.push(performance.now() - t);
      if (res.statusCode !== 200) throw new Error(`transfer refused: ${res.statusCode} ${text}`);
      ticketIds.push(text);
    }
  };
  try {
    await Promise.all(Array.from({ length: plan.concurrency }, submitter));
  } finally {
    await pool.close();
  }
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { ticketIds, latencies, seconds, ranOut: next >= plan.bodies.length && seconds < plan.seconds };
}

/** The `p`th percentile of ascending `sorted`. */
export function percentileOf(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}
