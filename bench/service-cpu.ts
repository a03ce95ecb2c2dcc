// bench:service-cpu — the service's own CPU per transfer, by the CPU of its own signature work,
// from one run: a figure that means the same on a loaded machine, since both sides are CPU time
// (not wall time) taken in the same run. The service runs as `tokenproxy start` in a process of
// its own on PostgreSQL (TEST_DATABASE_URL), the devnet behind its ARC API in another (mining every
// second), this process as the wallets posting pre-built signed transfers over HTTP (keep-alive,
// BENCH_TRANSFER_CONCURRENCY submitters, default 32, or BENCH_ARRIVAL_RATE a second). The service's CPU comes from
// /proc/<pid>/task/*/stat: the main thread and the others (the cosigning thread, V8's background
// threads: compiler, GC; libuv's pool). PostgreSQL's CPU is not in it.
//
// The service's idle CPU a second (timers, lease renewals, metrics), taken for BENCH_IDLE_SECONDS
// before the load, is shown apart: `less idle` takes it out of the window's CPU, which leaves what
// the transfers cost. The signature unit is bench/efficiency.ts's (2 signs + 3 verifies, one token
// input), sampled as CPU time in this process before and after the window, median of ten.
//
// Before and after a change: run it from two checkouts (git worktree) in turn, A B A B.
// BENCH_PROFILE=<dir> writes the service's CPU profile there (node --cpu-prof);
// BENCH_SERVICE_NODE_FLAGS (space-separated) are given to the service's node.
//
// Then, in this process, the cosigning thread's work alone: the pure step (cosignTransfer: parse,
// validate, cosign, verify) over one-input transfers, its CPU by the own signatures' sampled
// between its rounds; no batches, no other thread, so it moves little with the machine's load
// (BENCH_ONLY=step runs this part alone).
//
// Prints lines a script can read:
//   service CPU x<ratio> of own signatures (main thread x<a>, other threads x<b>; less idle x<c>)
//   cosign step x<ratio> of own signatures (median of <n> rounds: <low>-<high>)
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cosignTransfer } from '../src/domain/cosign-transfer.js';
import { requiredFunding } from '../src/domain/network-fee.js';
import { parseTransfer } from '../src/domain/parse-transfer.js';
import { isRefusal } from '../src/domain/transfer-refusal.js';
import { buildTransfer, tokenOutput } from '../test/support/build-transfer.js';
import { operatorOf } from '../test/support/operator-world.js';
import { freshDatabase } from '../test/support/test-databases.js';
import { party, TokenWorld } from '../test/support/token-world.js';
import { WARMUP_SECONDS } from './api-transfers.js';
import { batchFiguresOf, describeBatches, scrapeMetrics } from './batch-metrics.js';
import { cryptoCpu, OWN_SIGNS, OWN_VERIFIES } from './efficiency.js';
import { startDevnetProcess } from './load/devnet-process.js';
import { stopAllChildren } from './load/processes.js';
import { freePort, startServiceProcess } from './load/service-process.js';
import { prepare } from './load/world.js';
import { medianOf as median } from './median.js';
import { percentileOf, submitTransfers } from './transfer-submitters.js';

const SECONDS = Number(process.env.BENCH_TRANSFER_SECONDS ?? 8);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_TRANSFER_CONCURRENCY ?? 32);
const TRANSFERS = Number(process.env.BENCH_TRANSFERS ?? 2_000);
/**
 * Transfers a second sent on a fixed schedule (open loop) instead of closed loops: a before and an
 * after run at one rate have the same batches, whose fixed costs a transfer's CPU otherwise
 * carries in a share that moves with the rate the machine's load leaves.
 */
const ARRIVAL_RATE =
  process.env.BENCH_ARRIVAL_RATE === undefined ? undefined : Number(process.env.BENCH_ARRIVAL_RATE);
const PROFILE = process.env.BENCH_PROFILE;
const GENESIS_SATOSHIS = 50_000_000_000n;
const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** CPU seconds of each thread of `pid` (user + system), keyed by thread id, with its name. */
function threadSeconds(pid: number): Map<number, { name: string; seconds: number }> {
  const threads = new Map<number, { name: string; seconds: number }>();
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      threads.set(Number(task), {
        name,
        seconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND,
      });
    } catch {
      // the thread ended meanwhile
    }
  }
  return threads;
}

/** The whole process's CPU seconds (user + system, ended threads included). */
function processSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

interface Sample {
  readonly total: number;
  readonly threads: Map<number, { name: string; seconds: number }>;
  readonly at: number;
}

const sample = (pid: number): Sample => ({
  total: processSeconds(pid),
  threads: threadSeconds(pid),
  at: performance.now(),
});

/**
 * CPU seconds between two samples: the main thread (its thread id is the process's) and the
 * others: the cosigning thread, V8's (compiler, garbage collector) and libuv's. Every thread of a
 * Node process is named `node`, so the cosigning thread is not told apart here (a profile does).
 */
function split(pid: number, a: Sample, b: Sample): { main: number; other: number; total: number } {
  const main = (b.threads.get(pid)?.seconds ?? 0) - (a.threads.get(pid)?.seconds ?? 0);
  const total = b.total - a.total;
  return { main, other: total - main, total };
}

async function run(serverUrl: string): Promise<void> {
  const database = await freshDatabase(serverUrl, 'servicecpu');
  const dirs: string[] = [];
  const tempDir = (label: string) => {
    const dir = mkdtempSync(join(tmpdir(), `tokenproxy-servicecpu-${label}-`));
    dirs.push(dir);
    return dir;
  };
  try {
    const operator = operatorOf('service cpu');
    const { serviceFlags: shared } = await startDevnetProcess(operator, database.url, GENESIS_SATOSHIS);
    const prepared = await prepare(['--data-dir', tempDir('setup'), ...shared], TRANSFERS, {
      mine: false,
      createKey: true,
      tag: 'service cpu',
    });
    const port = await freePort();
    const service = await startServiceProcess({
      entry: 'src/cli/entry.ts',
      dataDir: tempDir('service'),
      port,
      shared,
      ...(PROFILE !== undefined && { profileDir: PROFILE }),
    });
    const speeds = Array.from({ length: 5 }, () => cryptoCpu());
    // Idle: the service started, nothing submitted yet.
    await new Promise((r) => setTimeout(r, 1000));
    const idleFrom = sample(service.pid);
    await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
    const idleTo = sample(service.pid);
    const idlePerSecond = (idleTo.total - idleFrom.total) / ((idleTo.at - idleFrom.at) / 1000);
    let before = idleTo;
    const admin = `Bearer ${prepared.adminKey!}`;
    let metricsBefore: Promise<string> = Promise.resolve('');
    const submitted = await submitTransfers({
      url: service.announced,
      authorization: `Bearer ${prepared.apiKey!}`,
      bodies: prepared.transfers.map((rawtx) => JSON.stringify({ rawtx })),
      warmupSeconds: WARMUP_SECONDS,
      seconds: SECONDS,
      concurrency: CONCURRENCY,
      ...(ARRIVAL_RATE !== undefined && { arrivalRate: ARRIVAL_RATE }),
      onMeasuring: () => {
        before = sample(service.pid);
        metricsBefore = scrapeMetrics(service.announced, admin);
      },
    });
    const after = sample(service.pid);
    const batches = batchFiguresOf(await scrapeMetrics(service.announced, admin), await metricsBefore);
    for (let i = 0; i < 5; i++) speeds.push(cryptoCpu());
    const own =
      OWN_SIGNS * median(speeds.map((s) => s.sign)) + OWN_VERIFIES * median(speeds.map((s) => s.verify));
    const n = submitted.latencies.length;
    const window = (after.at - before.at) / 1000;
    const cpu = split(service.pid, before, after);
    const lessIdle = cpu.total - idlePerSecond * window;
    const x = (seconds: number) => (seconds / n / own).toFixed(2);
    const ms = (seconds: number) => ((seconds * 1000) / n).toFixed(3);
    const busy = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
    console.log(
      `${n} transfers in ${window.toFixed(1)} s = ${(n / window).toFixed(0)}/s, submit p50 ${percentileOf(submitted.latencies, 50).toFixed(0)} ms, ` +
        `p99 ${percentileOf(submitted.latencies, 99).toFixed(0)} ms; load average ${busy}` +
        (submitted.ranOut ? ' — WARNING: the prepared transfers ran out; raise BENCH_TRANSFERS' : ''),
    );
    // A transfer's share of its batches' fixed costs moves with their size: compare runs by it.
    console.log(`batches in the window: ${describeBatches(batches)}`);
    console.log(
      `service CPU ms per transfer: ${ms(cpu.total)} (main thread ${ms(cpu.main)}, other threads ${ms(cpu.other)}); ` +
        `idle ${(idlePerSecond * 1000).toFixed(1)} ms a second; own signatures ${(own * 1000).toFixed(3)} ms ` +
        `(${OWN_SIGNS} signs + ${OWN_VERIFIES} verifies)`,
    );
    console.log(
      `service CPU x${x(cpu.total)} of own signatures (main thread x${x(cpu.main)}, ` +
        `other threads x${x(cpu.other)}; less idle x${x(lessIdle)})`,
    );
  } finally {
    await stopAllChildren();
    await database.drop().catch((err) => console.error('could not drop the database:', err));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

const STEP_TRANSFERS = 400;
const STEP_ROUNDS = 7;

/** The pure cosigning step's CPU per one-input transfer, by the own signatures', median round. */
function cosignStep(): void {
  const world = new TokenWorld();
  const alice = party('bench step alice');
  const bob = party('bench step bob');
  const out = (o: typeof bob, amount: bigint) =>
    tokenOutput(o, amount, world.config.tokenId, world.config.approver);
  const jobs = Array.from({ length: STEP_TRANSFERS }, (_, i) => {
    const known = world.credit(alice, [1_000_000n + BigInt(i)]);
    const raw = buildTransfer({
      inputs: known,
      outputs: [out(bob, 500_000n), out(world.fee, 100n), out(alice, 499_900n + BigInt(i))],
      signer: alice,
    });
    const parsed = parseTransfer(raw, world.config);
    if (isRefusal(parsed)) throw new Error(parsed.detail);
    const funding = world.fundingOutput(requiredFunding(parsed, known[0]!.satoshis, 50n) + 1_000n);
    return { raw, known, funding, satoshisPerKb: 50n, token: world.config };
  });
  const keys = { approver: world.approver.privateKey, funding: world.funding.privateKey };
  const cpu = (since: NodeJS.CpuUsage) => {
    const used = process.cpuUsage(since);
    return (used.user + used.system) / 1e6;
  };
  for (const job of jobs.slice(0, 50)) cosignTransfer(job, keys);
  const ratios: number[] = [];
  for (let r = 0; r < STEP_ROUNDS; r++) {
    const before = cryptoCpu(300);
    const t = process.cpuUsage();
    for (const job of jobs) {
      if (cosignTransfer(job, keys).kind !== 'cosigned') throw new Error('a bench transfer was not cosigned');
    }
    const perTransfer = cpu(t) / jobs.length;
    const after = cryptoCpu(300);
    const own = (OWN_SIGNS * (before.sign + after.sign) + OWN_VERIFIES * (before.verify + after.verify)) / 2;
    ratios.push(perTransfer / own);
  }
  ratios.sort((a, b) => a - b);
  console.log(
    `cosign step x${median(ratios).toFixed(2)} of own signatures (median of ${STEP_ROUNDS} rounds: ` +
      `${ratios[0]!.toFixed(2)}-${ratios.at(-1)!.toFixed(2)})`,
  );
}

const url = process.env.TEST_DATABASE_URL;
if (process.env.BENCH_ONLY !== 'step') {
  if (url === undefined) {
    console.log('the service part needs TEST_DATABASE_URL (a PostgreSQL server): skipped');
  } else {
    await run(url);
  }
}
cosignStep();
