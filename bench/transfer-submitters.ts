// The submitters of the transfer benchmarks: CONCURRENCY loops over keep-alive connections, each
// posting the next prepared transfer (POST /v2/transfer) until the time is up or none is left.
// A refusal stops the run: every prepared transfer is valid, so a refusal is a bug to see.
// With `arrivalRate` (BENCH_ARRIVAL_RATE) the loop is open instead: a fixed rate of arrivals.
//
// The first `warmupSeconds` are not measured: a service's first requests pay for its cold start
// (connections opened, statements prepared and planned, a cold cosigning thread, the first
// funding lease and fee rate, code not yet optimized: 220-270 ms inside the service for each of
// the first 32, and as long again waiting to be read), and at 32 submitters those answers are
// more than 1% of a 10 s run, so they alone were the submit p99 (docs/performance.md, "The benchmarks"). The open
// loop keeps sending through the cold start, whose backlog then drains at the spare capacity's
// pace: its warm-up lasts until that backlog has drained too. The warm-up's figures are returned
// apart, so the cold start stays in view.
import { writeFileSync } from 'node:fs';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { Pool } from 'undici';

/**
 * A file: every transfer's line is written there at the end, `<due> <latency> <late>` in ms: when
 * it was due since the run began, how long until its answer, and how late the tool sent it (open
 * loop), after a first line `# window <ms>` (when the measured window opened) and a line
 * `# gc <at> <ms>` for each of the tool's own collector pauses of 5 ms or more, to see when in a
 * run the slow answers came and whether the tool itself was stalled then.
 */
const LATENCY_TRACE = process.env.BENCH_LATENCY_TRACE;

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
  readonly warmup: { readonly transfers: number; readonly maxMs: number; readonly seconds: number };
}

/**
 * The open loop's window opens once no request due this long ago is still unanswered: the cold
 * start's backlog has drained (on a two-core machine at 200 a second it took 3-6 s, its answers
 * taking 400-700 ms meanwhile). In the steady state a slower answer is rare enough that such an
 * instant comes within a second or two.
 */
const BACKLOG_DRAINED_MS = 250;
/**
 * ... and this long after that: the instant the backlog first looks drained, answers still take
 * 150-250 ms (the last of it is answered in a few commit batches).
 */
const SETTLE_MS = 2000;
/** The window opens after this long, drained or not (a service that cannot keep up never drains). */
const WARMUP_MOST_MS = 30_000;

export async function submitTransfers(plan: SubmitPlan): Promise<SubmitRun> {
  const pool = new Pool(plan.url, { connections: plan.concurrency, pipelining: 1 });
  const latencies: number[] = [];
  const trace: string[] = [];
  const ticketIds: string[] = [];
  const warmup = { transfers: 0, maxMs: 0 };
  let next = 0;
  const begun = performance.now();
  // The tool's own collector pauses, into the trace: a slow answer then may be the tool's.
  const pauses: string[] = [];
  const collector = new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      if (e.duration >= 5) pauses.push(`# gc ${(e.startTime - begun).toFixed(1)} ${e.duration.toFixed(1)}`);
  });
  if (LATENCY_TRACE !== undefined) collector.observe({ entryTypes: ['gc'] });
  let measuring = begun + plan.warmupSeconds * 1000;
  let deadline = measuring + plan.seconds * 1000;
  // The closed loop opens its window on time. The open loop opens it once the warm-up's time is up
  // and the cold start's backlog has drained (below), so that the window measures the steady state.
  const opening =
    plan.arrivalRate === undefined
      ? setTimeout(() => plan.onMeasuring?.(), plan.warmupSeconds * 1000)
      : undefined;
  /** Due times of the open loop's requests not yet answered, oldest first. */
  const outstanding = new Set<number>();
  let windowOpen = plan.arrivalRate === undefined;
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
    let drainedAt: number | undefined;
    for (let i = 0; next < plan.bodies.length; i++) {
      const at = start + (i * 1000) / rate;
      if (!windowOpen && at >= measuring) {
        const oldest = outstanding.values().next().value;
        if (drainedAt === undefined && (oldest === undefined || oldest >= at - BACKLOG_DRAINED_MS))
          drainedAt = at;
        windowOpen = (drainedAt !== undefined && at >= drainedAt + SETTLE_MS) || at - begun >= WARMUP_MOST_MS;
        // Not yet: the window can open at the next arrival at the earliest.
        measuring = windowOpen ? at : at + 1000 / rate;
        deadline = measuring + plan.seconds * 1000;
        if (windowOpen) {
          lastAnswer = at;
          plan.onMeasuring?.();
        }
      }
      if (at >= deadline) break;
      const wait = at - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      sent.push(send(plan.bodies[next++]!, at));
    }
    await Promise.all(sent);
  };
  const send = async (body: string, t: number) => {
    const late = performance.now() - t;
    outstanding.add(t);
    const res = await pool.request({
      path: '/v2/transfer',
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: plan.authorization },
      body,
    });
    const text = await res.body.text();
    const answered = performance.now();
    outstanding.delete(t);
    const measured = windowOpen && t >= measuring;
    trace.push(`${(t - begun).toFixed(1)} ${(answered - t).toFixed(1)} ${late.toFixed(1)}`);
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
    if (opening !== undefined) clearTimeout(opening);
    await pool.close();
    collector.disconnect();
  }
  if (LATENCY_TRACE !== undefined)
    writeFileSync(
      LATENCY_TRACE,
      `# window ${(measuring - begun).toFixed(1)}\n${[...pauses, ...trace].join('\n')}\n`,
    );
  if (latencies.length === 0)
    throw new Error('the prepared transfers ran out during the warm-up; raise BENCH_TRANSFERS');
  const seconds = (lastAnswer - measuring) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    ticketIds,
    latencies,
    seconds,
    ranOut: next >= plan.bodies.length && seconds < plan.seconds,
    warmup: { ...warmup, seconds: (measuring - begun) / 1000 },
  };
}

/** The `p`th percentile of ascending `sorted`. */
export function percentileOf(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}
