// bench:load — a mixed workload (four reads in the reference client's shape to one signed
// transfer, each transfer done when its ticket is accepted) for a fixed time, at a fixed
// concurrency, against:
//   - the baseline: a bare node:http server answering fixed JSON (one process), same generator;
//   - the embedded default (one `tokenproxy start` process: PGlite + devnet);
//   - PostgreSQL with 1, 2 and 4 `--roles api` processes (plus one `--roles tracker,deliverer`
//     process) on one fresh database and one devnet process behind its ARC API.
// Rounds interleave the configurations so machine load hits all (the PostgreSQL ones in a
// turning order), each measurement with wallets of its own; each figure is the median round. Prints throughput (and its ratio to the baseline), p50/p99 latency per kind, and the
// scaling efficiency throughput(N) / (N x throughput(1)). Every process it starts is stopped by
// its PID, also on error. PostgreSQL parts need TEST_DATABASE_URL.
// Env: BENCH_LOAD_SECONDS (20), BENCH_LOAD_WARMUP_SECONDS (10), BENCH_LOAD_ROUNDS (3),
// BENCH_LOAD_CONCURRENCY (16), BENCH_LOAD_FUNDED (transfers made ready per measurement),
// BENCH_LOAD_INSTANCES (1,2,4), BENCH_LOAD_WRITER (both: each PostgreSQL configuration without and
// with a writer in the tracker+deliverer process, ADR 0007; without; with), BENCH_SERVICE_FLAGS (extra flags of every service process),
// BENCH_LOAD_PGSS (1: statements per transfer from pg_stat_statements), BENCH_LOAD_PROFILE (a directory: CPU profiles of the api and tracker+deliverer processes).
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { operatorOf } from '../test/support/operator-world.js';
import { freshDatabase } from '../test/support/test-databases.js';
import { BENCH_SERVICE_FLAGS } from './bench-service.js';
import { describeCpu, describeSwitches, type Groups, sampleCpu } from './cpu-accounts.js';
import { startDevnetProcess } from './load/devnet-process.js';
import { type LoadResult, percentile, runLoad } from './load/generator.js';
import { type Child, startChild, stopAllChildren } from './load/processes.js';
import { type Prepared, prepare } from './load/world.js';
import { medianBy as median } from './median.js';
import { describeStatementStats, resetStatementStats } from './statement-stats.js';
import { databaseCommits, describeTableWrites, tableWrites } from './table-writes.js';

const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 20);
/**
 * Warm-up before each measurement. Each measurement starts fresh service processes, and a
 * process serving 1/N of the load takes N times as long to get its hot code optimized: with
 * 3 s, two api processes spent 1.55 ms of CPU per request against 0.72 ms after 20 s
 * (2026-11-26), so a short warm-up measured the JIT, not the service.
 */
const WARMUP = Number(process.env.BENCH_LOAD_WARMUP_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_LOAD_ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_LOAD_CONCURRENCY ?? 16);
const FUNDED = Number(process.env.BENCH_LOAD_FUNDED ?? Math.ceil((SECONDS + WARMUP) * 320));
/** Api processes per PostgreSQL configuration (BENCH_LOAD_INSTANCES, e.g. `1,2`, runs fewer). */
const INSTANCES = (
  (process.env.BENCH_LOAD_INSTANCES ?? '1,2,4').split(',').map(Number) as (1 | 2 | 4)[]
).filter((n) => n === 1 || n === 2 || n === 4);
/** Whether the PostgreSQL configurations run without a writer, with one, or both (BENCH_LOAD_WRITER). */
const WRITER_MODES: readonly boolean[] = (
  { both: [false, true], with: [true], without: [false] } as Record<string, boolean[]>
)[process.env.BENCH_LOAD_WRITER ?? 'both'] ?? [false, true];
/** Where the PostgreSQL configurations' api and tracker+deliverer processes write CPU profiles. */
const PROFILE = process.env.BENCH_LOAD_PROFILE;
/** Statements per transfer of each PostgreSQL measurement, from pg_stat_statements (statement-stats.ts). */
const PGSS = process.env.BENCH_LOAD_PGSS === '1';
const ENTRY = 'src/cli/entry.ts';
const RUNNING_AT = /running at (http:\/\/\S+)/;

interface Figures {
  readonly throughput: number;
  readonly transfersPerSecond: number;
  readonly read: { readonly p50: number; readonly p99: number; readonly count: number };
  readonly transfer: { readonly p50: number; readonly p99: number; readonly count: number };
  readonly errors: number;
  readonly starved: number;
}

function figuresOf(r: LoadResult): Figures {
  const kind = (values: number[]) => ({
    p50: percentile(values, 50),
    p99: percentile(values, 99),
    count: values.length,
  });
  return {
    throughput: (r.latencies.read.length + r.latencies.transfer.length) / r.seconds,
    transfersPerSecond: r.latencies.transfer.length / r.seconds,
    read: kind(r.latencies.read),
    transfer: kind(r.latencies.transfer),
    errors: r.errors.length,
    starved: r.starved,
  };
}

/** A warm-up (discarded), then the measured run. */
async function measure(
  label: string,
  targets: readonly string[],
  apiKey: string,
  prepared: Pick<Prepared, 'transfers' | 'ticketIds' | 'addressGroups'> & { readonly sameTransfer?: string },
  cpuGroups?: Groups,
  /** The database whose tracker rows written per transfer are printed (PostgreSQL configurations). */
  databaseUrl?: string,
): Promise<Figures> {
  const plan = {
    targets,
    concurrency: CONCURRENCY,
    apiKey,
    addressGroups: prepared.addressGroups,
    transfers: prepared.transfers,
    ticketIds: prepared.ticketIds,
    ...(prepared.sameTransfer !== undefined && { sameTransfer: prepared.sameTransfer }),
  };
  await runLoad({ ...plan, seconds: WARMUP });
  const writesBefore = databaseUrl === undefined ? undefined : await tableWrites(databaseUrl);
  const commitsBefore = databaseUrl === undefined ? undefined : await databaseCommits(databaseUrl);
  // pg_stat_statements lives in the database TEST_DATABASE_URL names (the extension's home).
  const statsUrl = process.env.TEST_DATABASE_URL;
  if (PGSS && statsUrl !== undefined) await resetStatementStats(statsUrl);
  const before = cpuGroups === undefined ? undefined : sampleCpu(cpuGroups);
  const result = await runLoad({ ...plan, seconds: SECONDS });
  const after = cpuGroups === undefined ? undefined : sampleCpu(cpuGroups);
  const f = figuresOf(result);
  if (databaseUrl !== undefined && writesBefore !== undefined) {
    await new Promise((r) => setTimeout(r, 1000)); // the statistics views lag
    // The tracker's rows: tickets (claims and reschedules among them) and watched blocks.
    for (const line of describeTableWrites(writesBefore, await tableWrites(databaseUrl), f.transfer.count))
      if (/^(tickets|watched_blocks):/.test(line)) console.log(`  rows per transfer, ${line}`);
    // Every committed transaction, the reads' statements outside a transaction included (the
    // 4 reads of each transfer's share): what batching across processes changes.
    const commits = (await databaseCommits(databaseUrl)) - (commitsBefore ?? 0);
    console.log(`  database transactions per transfer: ${(commits / f.transfer.count).toFixed(2)}`);
    if (PGSS && statsUrl !== undefined)
      for (const line of await describeStatementStats(statsUrl, databaseUrl, f.transfer.count))
        console.log(`    ${line}`);
  }
  const requests = result.latencies.read.length + result.latencies.transfer.length;
  if (before !== undefined && after !== undefined) {
    console.log(`  ${describeCpu(before, after, requests, 'request')}`);
    console.log(`  ${describeSwitches(before, after, requests, 'request')}`);
  }
  const fmt = (n: number) => n.toFixed(1);
  console.log(
    `  ${label}: ${fmt(f.throughput)} req/s (${fmt(f.transfersPerSecond)} transfers/s); ` +
      `read p50 ${fmt(f.read.p50)} ms p99 ${fmt(f.read.p99)} ms; transfer p50 ${fmt(f.transfer.p50)} ms p99 ${fmt(f.transfer.p99)} ms; ` +
      `errors ${f.errors}, starved ${f.starved}`,
  );
  for (const e of result.errors.slice(0, 3)) console.log(`    error: ${e}`);
  if (f.starved > 0)
    console.log(
      `    warning: transfers ran out (${f.starved}): raise BENCH_LOAD_FUNDED; this round's figures are reads-heavy`,
    );
  return f;
}

// The operator's keys, shared by every PostgreSQL process (and the API keys' master key).
const operator = operatorOf('load');
const GENESIS_SATOSHIS = 50_000_000_000n;

const tempDirs: string[] = [];
/** The devnet process's PID (its CPU is counted apart). */
let devnetPid = -1;
const tempDir = (label: string) => {
  const dir = mkdtempSync(join(tmpdir(), `tokenproxy-load-${label}-`));
  tempDirs.push(dir);
  return dir;
};

/** The PostgreSQL configurations' database (set once it is created). */
let databaseUrl: string | undefined;

type Config =
  | 'baseline'
  | 'embedded'
  | `postgres x${(typeof INSTANCES)[number]}`
  | `postgres x${(typeof INSTANCES)[number]} + writer`;
const postgresLabel = (n: (typeof INSTANCES)[number], writer: boolean): Config =>
  writer ? `postgres x${n} + writer` : `postgres x${n}`;
const results = new Map<Config, Figures[]>();
const record = (config: Config, f: Figures) => results.set(config, [...(results.get(config) ?? []), f]);

async function baselineRound(sampleRawtx: string): Promise<void> {
  const bare = await startChild('bare server', 'bench/load/bare-server.ts', [], /at (http:\/\/\S+)/);
  try {
    const sample = { transfers: [], ticketIds: [], addressGroups: [['baseline']], sameTransfer: sampleRawtx };
    record('baseline', await measure('baseline', [bare.announced], 'x', sample));
  } finally {
    await bare.stop();
  }
}

async function embeddedRound(
  round: number,
  dataDir: string,
  apiKey: { value: string | null },
): Promise<string> {
  const prepared = await prepare(['--data-dir', dataDir, '--block-interval-ms', '0'], FUNDED, {
    mine: true,
    createKey: apiKey.value === null,
    tag: `embedded ${round}`,
  });
  apiKey.value ??= prepared.apiKey;
  const flags = ['--data-dir', dataDir, '--port', '0', '--log-level', 'warn', '--no-rate-limit-enabled'];
  const service = await startChild(
    'embedded',
    ENTRY,
    ['start', ...flags, '--block-interval-ms', '1000'],
    RUNNING_AT,
  );
  try {
    record('embedded', await measure('embedded', [service.announced], apiKey.value!, prepared));
  } finally {
    await service.stop();
  }
  return prepared.transfers[0] ?? '';
}

async function postgresRound(
  round: number,
  n: (typeof INSTANCES)[number],
  writer: boolean,
  shared: readonly string[],
  apiKey: { value: string | null },
): Promise<void> {
  const prepared = await prepare(['--data-dir', tempDir('setup'), ...shared], FUNDED, {
    mine: false,
    createKey: apiKey.value === null,
    tag: `postgres ${n}${writer ? ' writer' : ''} ${round}`,
  });
  apiKey.value ??= prepared.apiKey;
  const children: Child[] = [];
  try {
    const common = [
      '--log-level',
      'warn',
      '--no-rate-limit-enabled',
      '--tracker-poll-ms',
      '1000',
      ...shared,
      ...BENCH_SERVICE_FLAGS,
    ];
    children.push(
      await startChild(
        'tracker+deliverer',
        ENTRY,
        [
          'start',
          '--roles',
          writer ? 'tracker,deliverer,writer' : 'tracker,deliverer',
          // Every process answers /healthz, /readyz and /metrics on its port: any free one.
          '--port',
          '0',
          '--data-dir',
          tempDir('tracker'),
          ...common,
        ],
        /running/,
        undefined,
        PROFILE === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', `${PROFILE}/tracker`],
      ),
    );
    const apis = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        startChild(
          `api ${i}`,
          ENTRY,
          ['start', '--roles', 'api', '--port', '0', '--data-dir', tempDir(`api${i}`), ...common],
          RUNNING_AT,
          undefined,
          PROFILE === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', `${PROFILE}/api`],
        ),
      ),
    );
    children.push(...apis);
    const label = postgresLabel(n, writer);
    record(
      label,
      await measure(
        label,
        apis.map((a) => a.announced),
        apiKey.value!,
        prepared,
        {
          api: (pid) => apis.some((a) => a.pid === pid),
          'tracker+deliverer': (pid) => pid === children[0]!.pid,
          devnet: (pid) => pid === devnetPid,
          postgres: (_, cmd) => cmd.startsWith('postgres') || cmd.includes('/bin/postgres'),
          generator: (pid) => pid === process.pid,
        },
        databaseUrl,
      ),
    );
  } finally {
    for (const c of children.reverse()) await c.stop();
  }
}

async function machineLine(pgUrl: string | undefined): Promise<string> {
  let postgres = 'PostgreSQL not used';
  if (pgUrl !== undefined) {
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    postgres = `PostgreSQL ${(await client.query('SHOW server_version')).rows[0].server_version}`;
    await client.end();
  }
  const cpu = cpus();
  return (
    `${cpu.length} cores (${cpu[0]?.model.trim()}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB, ` +
    `Node ${process.version}, ${postgres}, ${new Date().toISOString().slice(0, 10)}; ${loadLine()}`
  );
}

/** The machine's load average (other work on it weighs on every figure alike). */
function loadLine(): string {
  return `load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`;
}

async function main(): Promise<void> {
  const pgUrl = process.env.TEST_DATABASE_URL || undefined;
  console.log(`machine: ${await machineLine(pgUrl)}`);
  console.log(
    `${ROUNDS} rounds of ${SECONDS} s per configuration (after ${WARMUP} s of warm-up), ${CONCURRENCY} concurrent requests, 4 reads : 1 transfer`,
  );
  const embeddedDir = tempDir('embedded');
  const embeddedKey = { value: null as string | null };
  const pgKey = { value: null as string | null };
  let database: Awaited<ReturnType<typeof freshDatabase>> | null = null;
  let shared: string[] = [];
  try {
    if (pgUrl !== undefined) {
      database = await freshDatabase(pgUrl, 'load');
      databaseUrl = database.url;
      const started = await startDevnetProcess(operator, database.url, GENESIS_SATOSHIS);
      shared = started.serviceFlags;
      devnetPid = started.devnet.pid;
    }
    for (let round = 1; round <= ROUNDS; round++) {
      console.log(`round ${round}:`);
      const sample = await embeddedRound(round, embeddedDir, embeddedKey);
      await baselineRound(sample);
      // The order of the PostgreSQL configurations turns each round (the database grows).
      const configs = WRITER_MODES.flatMap((writer) => INSTANCES.map((n) => ({ n, writer })));
      const order = configs.map((_, k) => configs[(k + round - 1) % configs.length]!);
      if (pgUrl !== undefined)
        for (const { n, writer } of order) await postgresRound(round, n, writer, shared, pgKey);
    }
  } finally {
    await stopAllChildren();
    await database?.drop().catch((err) => console.error('could not drop the database:', err));
    for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  }
  console.log(`after the run: ${loadLine()}`);
  report();
}

function report(): void {
  const baselines = results.get('baseline')!;
  const one = results.get('postgres x1') ?? results.get('postgres x1 + writer');
  console.log('');
  console.log(
    '| configuration | req/s (ratio to bare node:http) | transfers/s | read p50 / p99 ms | transfer p50 / p99 ms | scaling efficiency | errors |',
  );
  console.log('|---|---|---|---|---|---|---|');
  const order: Config[] = [
    'baseline',
    'embedded',
    ...WRITER_MODES.flatMap((writer) => INSTANCES.map((n) => postgresLabel(n, writer))),
  ];
  for (const config of order) {
    const rounds = results.get(config);
    if (rounds === undefined) continue;
    // Each round's figure against the same round's baseline; the median round is reported.
    const ratios = rounds.map((f, i) => f.throughput / baselines[i]!.throughput);
    const i = rounds.indexOf(median(rounds, (f) => f.throughput / baselines[rounds.indexOf(f)]!.throughput));
    const f = rounds[i]!;
    const n = /x(\d)( \+ writer)?$/.exec(config)?.[1];
    // Against x1 of the same kind (with a writer or without).
    const ones = results.get(config.endsWith(' + writer') ? 'postgres x1 + writer' : 'postgres x1') ?? one;
    let efficiency = '—';
    if (n !== undefined && ones !== undefined) {
      const perRound = rounds.map((r, k) => r.throughput / (Number(n) * ones[k]!.throughput));
      efficiency = `${median(perRound, (e) => e).toFixed(2)} (rounds ${perRound.map((e) => e.toFixed(2)).join(' ')})`;
    }
    const ms = (x: number) => (Number.isNaN(x) ? '—' : x.toFixed(1));
    console.log(
      `| ${config} | ${f.throughput.toFixed(0)} (${config === 'baseline' ? '1' : ratios[i]!.toFixed(3)}; rounds ${ratios.map((r) => r.toFixed(3)).join(' ')}) | ` +
        `${f.transfersPerSecond.toFixed(1)} | ${ms(f.read.p50)} / ${ms(f.read.p99)} | ${ms(f.transfer.p50)} / ${ms(f.transfer.p99)} | ` +
        `${efficiency} | ${rounds.reduce((s, r) => s + r.errors, 0)} (starved ${rounds.reduce((s, r) => s + r.starved, 0)}) |`,
    );
  }
  if (one === undefined) console.log('PostgreSQL: skipped (set TEST_DATABASE_URL)');
}

const interrupted = () => {
  void stopAllChildren().finally(() => process.exit(130));
};
process.once('SIGINT', interrupted);
process.once('SIGTERM', interrupted);
await main();
