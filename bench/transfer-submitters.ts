// The submitters of the transfer benchmarks: CONCURRENCY loops over keep-alive connections, each
// posting the next prepared transfer (POST /v2/transfer) until the time is up or none is left.
// A refusal stops the run: every prepared transfer is valid, so a refusal is a bug to see.
// With `arrivalRate` (BENCH_ARRIVAL_RATE) the loop is open instead: a fixed rate of arrivals.
//
// The first `warmupSeconds` are not measured: a service's first requests pay for its cold start
// (connections opened, statements prepared and planned, a cold cosigning thread, the first
// funding lease and fee rate, code not yet optimized: 220-270 ms inside the service for each of
// the first 32, and as long again waiting to be read), and at 32 submitters those answers are
// more than 1% of a 10 s run, so they alone were the submit p99 (docs/performance.md, "The benchmarks"). The warm-up's
// figures are returned apart, so the cold start stays in view.
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';

export interface SubmitPlan {
  readonly url: string;
  /** `Authorization` header value. */
  readonly authorization: string;
  /** Request bodies (JSON), each sent once, in order. */
  readonly bodies: readonly string[];
  /** Untimed seconds before the measured window; transfers sent then count in none of its figures. */
  readonly warmupSeconds: number;
  /** The measured window's length. */
  readonly seconds: number;
  readonly concurrency: number;
  /**
   * Open loop: transfers a second, each sent at its scheduled time whether or not earlier ones
   * were answered, its latency counted from that time (a queue in the tool counts, so a service
   * that cannot keep up shows it); `concurrency` then only bounds the connections.
   */
  readonly arrivalRate?: number;
  /** Called once when the measured window opens (e.g. to sample CPU there). */
  readonly onMeasuring?: () => void;
}

export interface SubmitRun {
  /** Every transfer answered, the warm-up's included (all of them are to be mined). */
  readonly ticketIds: string[];
  /** Milliseconds from request to answer of the transfers sent in the measured window, sorted ascending. */
  readonly latencies: number[];
  /** From the window's opening to the last answer of a transfer sent in it. */
  readonly seconds: number;
  /** The prepared transfers ran out before the time was up. */
  readonly ranOut: boolean;
  /** The warm-up's transfers and their slowest answer, ms. */
  readonly warmup: { readonly transfers: number; readonly maxMs: number };
}

export async function submitTransfers(plan: SubmitPlan): Promise<SubmitRun> {
  const pool = new Pool(plan.url, { connections: plan.concurrency, pipelining: 1 });
  const latencies: number[] = [];
  const ticketIds: string[] = [];
  const warmup = { transfers: 0, maxMs: 0 };
  let next = 0;
  const measuring = performance.now() + plan.warmupSeconds * 1000;
  const deadline = measuring + plan.seconds * 1000;
  const opening = setTimeout(() => plan.onMeasuring?.(), plan.warmupSeconds * 1000);
  let lastAnswer = measuring;
  const submitter = async () => {
    while (performance.now() < deadline && next < plan.bodies.length)
      await send(plan.bodies[next++]!, performance.now());
  };
  // Open loop: one request per scheduled instant, none waiting for another's answer.
  const scheduled = async () => {
    const rate = plan.arrivalRate!;
    const start = performance.now();
    const sent: Promise<void>[] = [];
    for (let i = 0; next < plan.bodies.length; i++) {
      const at = start + (i * 1000) / rate;
      if (at >= deadline) break;
      const wait = at - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      sent.push(send(plan.bodies[next++]!, at));
    }
    await Promise.all(sent);
  };
  const send = async (body: string, t: number) => {
    const measured = t >= measuring;
    const res = await pool.request({
      path: '/v2/transfer',
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: plan.authorization },
      body,
    });
    const text = await res.body.text();
    const answered = performance.now();
    if (res.statusCode !== 200) throw new Error(`transfer refused: ${res.statusCode} ${text}`);
    ticketIds.push((JSON.parse(text) as { ticketId: string }).ticketId);
    if (measured) {
      latencies.push(answered - t);
      lastAnswer = Math.max(lastAnswer, answered);
    } else {
      warmup.transfers++;
      warmup.maxMs = Math.max(warmup.maxMs, answered - t);
    }
  };
  try {
    if (plan.arrivalRate !== undefined) await scheduled();
    else await Promise.all(Array.from({ length: plan.concurrency }, submitter));
  } finally {
    clearTimeout(opening);
    await pool.close();
  }
  if (latencies.length === 0)
    throw new Error('the prepared transfers ran out during the warm-up; raise BENCH_TRANSFERS');
  const seconds = (lastAnswer - measuring) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    ticketIds,
    latencies,
    seconds,
    ranOut: next >= plan.bodies.length && seconds < plan.seconds,
    warmup,
  };
}

/** The `p`th percentile of ascending `sorted`. */
export function percentileOf(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}
