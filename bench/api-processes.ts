// bench:api's production-shaped transfer run: the service, the ledger and the wallets each in a
// process of their own, as they are deployed (`tokenproxy start` on PostgreSQL with ARC; the
// devnet behind its ARC API standing in for the network; this process as the wallets). The
// in-process runs of bench/api-transfers.ts put the devnet's validation and mining and the
// load tool's HTTP client on the service's event loop; this one measures the service alone.
// Setup, untimed: the wallets' transfers are prepared with the service's own parts
// (bench/load/world.ts), then the service starts. Printed like the in-process runs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import type { Db } from '../src/store/db/db.js';
import { operatorOf } from '../test/support/operator-world.js';
import { freshDatabase } from '../test/support/test-databases.js';
import { figuresOf, type TransferFigures, WARMUP_SECONDS } from './api-transfers.js';
import {
  batchFiguresOf,
  describeBatches,
  describeEventLoop,
  gaugeValue,
  scrapeMetrics,
} from './batch-metrics.js';
import { mineUntilMined } from './bench-service.js';
import { describeCpu, describeSwitches, sampleCpu } from './cpu-accounts.js';
import { CeilingSamples, type CryptoSpeed } from './crypto-ceiling.js';
import {
  backendPids,
  cryptoCpu,
  devnetCounts,
  formatEfficiency,
  OWN_SIGNS,
  OWN_VERIFIES,
  rowWritesOf,
  walPosition,
} from './efficiency.js';
import { startDevnetProcess } from './load/devnet-process.js';
import { stopAllChildren } from './load/processes.js';
import { freePort, startServiceProcess } from './load/service-process.js';
import { prepare } from './load/world.js';
import { medianOf } from './median.js';
import { nextvalSeconds } from './score-draw-cost.js';
import { describeTableWrites, tableWrites } from './table-writes.js';
import { percentileOf, submitTransfers } from './transfer-submitters.js';

const SECONDS = Number(process.env.BENCH_TRANSFER_SECONDS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_TRANSFER_CONCURRENCY ?? 32);
/** Transfers a second sent on a fixed schedule (open loop) instead of CONCURRENCY closed loops. */
const ARRIVAL_RATE =
  process.env.BENCH_ARRIVAL_RATE === undefined ? undefined : Number(process.env.BENCH_ARRIVAL_RATE);
const ENTRY = 'src/cli/entry.ts';
const GENESIS_SATOSHIS = 50_000_000_000n;
/** A folder: the service process's CPU profile is written there at its exit (node --cpu-prof). */
const PROFILE = process.env.BENCH_PROFILE;
/**
 * Scrape `/metrics` this often (ms) through the measured window, as Prometheus would (its default
 * is 15 s; a short interval puts many scrapes in a 10 s window), and print how long they took.
 */
const SCRAPE_EVERY_MS =
  process.env.BENCH_SCRAPE_EVERY_MS === undefined ? undefined : Number(process.env.BENCH_SCRAPE_EVERY_MS);

/** Sustained transfers against a `tokenproxy start` process on a fresh database of `serverUrl`. */
export async function processTransfers(serverUrl: string, count: number): Promise<TransferFigures> {
  const database = await freshDatabase(serverUrl, 'apiproc');
  const dirs: string[] = [];
  const tempDir = (label: string) => {
    const dir = mkdtempSync(join(tmpdir(), `tokenproxy-apiproc-${label}-`));
    dirs.push(dir);
    return dir;
  };
  try {
    const operator = operatorOf('api processes');
    const { devnet, serviceFlags: shared } = await startDevnetProcess(
      operator,
      database.url,
      GENESIS_SATOSHIS,
    );
    const prepared = await prepare(['--data-dir', tempDir('setup'), ...shared], count, {
      mine: false,
      createKey: true,
      tag: 'api processes',
    });
    const port = await freePort();
    const service = await startServiceProcess({
      entry: ENTRY,
      dataDir: tempDir('service'),
      port,
      shared,
      ...(PROFILE !== undefined && { profileDir: PROFILE }),
    });
    // PostgreSQL's CPU: the backends of the run's database and the WAL writer, not the other
    // databases' backends of a shared server (refreshed: the service opens connections as it warms).
    let backends = await backendPids(database.url);
    const refreshing = setInterval(() => {
      backendPids(database.url).then(
        (pids) => {
          backends = new Set([...backends, ...pids]);
        },
        () => {},
      );
    }, 1000);
    refreshing.unref(); // a failed run must not be kept alive by it
    const groups = {
      service: (pid: number) => pid === service.pid,
      devnet: (pid: number) => pid === devnet.pid,
      postgres: (pid: number, cmd: string) => backends.has(pid) || /^postgres: (\S+: )?walwriter/.test(cmd),
      wallets: (pid: number) => pid === process.pid,
    };
    const arcUrl = shared[shared.indexOf('--arc-url') + 1]!;
    const speeds: CryptoSpeed[] = [];
    for (let i = 0; i < 5; i++) speeds.push(cryptoCpu());
    const authorization = `Bearer ${prepared.adminKey!}`;
    // The setup's own writes (its mints and funding, and their records and address rows
    // rescored when mined) are done and reported before the count starts: they are not the
    // transfers' writes.
    await untilSetupMined(database.url);
    await statisticsReported();
    const writesBefore = await tableWrites(database.url);
    const walBefore = await walPosition(database.url);
    const ceiling = new CeilingSamples();
    ceiling.sample();
    let before = sampleCpu(groups);
    let metricsBefore: Promise<string> = Promise.resolve('');
    let devnetBefore: ReturnType<typeof devnetCounts> = Promise.resolve({ signs: 0, verifies: 0 });
    let scraper: { stop(): Promise<string> } | undefined;
    // One scrape before the run: a process's first scrape prepares the gauges' statements and
    // starts its default metrics, a cost Prometheus pays once, not inside the measured window.
    await scrapeMetrics(service.announced, authorization);
    const started = performance.now();
    const run = await submitTransfers({
      url: service.announced,
      authorization: `Bearer ${prepared.apiKey!}`,
      bodies: prepared.transfers.map((rawtx) => JSON.stringify({ rawtx })),
      warmupSeconds: WARMUP_SECONDS,
      seconds: SECONDS,
      concurrency: CONCURRENCY,
      ...(ARRIVAL_RATE !== undefined && { arrivalRate: ARRIVAL_RATE }),
      onMeasuring: () => {
        before = sampleCpu(groups);
        metricsBefore = scrapeMetrics(service.announced, authorization);
        devnetBefore = devnetCounts(arcUrl);
        if (SCRAPE_EVERY_MS !== undefined)
          scraper = scrapeEvery(SCRAPE_EVERY_MS, service.announced, authorization);
      },
    });
    if (scraper !== undefined) console.log(`  ${await scraper.stop()}`);
    const after = sampleCpu(groups);
    const devnetAfter = await devnetCounts(arcUrl);
    clearInterval(refreshing);
    console.log(`  ${describeCpu(before, after, run.latencies.length)}`);
    console.log(`  ${describeSwitches(before, after, run.latencies.length)}`);
    const metrics = await scrapeMetrics(service.announced, authorization);
    console.log(
      `  batches in the window: ${describeBatches(batchFiguresOf(metrics, await metricsBefore))}; ${describeEventLoop(metrics)}`,
    );
    await untilMined(database.url, run.ticketIds);
    const mined = performance.now();
    const walAfter = await walPosition(database.url);
    await statisticsReported();
    const writesAfter = await tableWrites(database.url);
    if (process.env.BENCH_DETAIL === '1') {
      // For pg_waldump (--stats=record, or per relation) on a server of the run's own.
      console.log(`  WAL from ${lsnOf(walBefore.bytes)} to ${lsnOf(walAfter.bytes)}`);
      console.log('  row writes per transfer, from the submission to MINED:');
      for (const line of describeTableWrites(writesBefore, writesAfter, run.ticketIds.length))
        console.log(`    ${line}`);
    }
    for (let i = 0; i < 5; i++) speeds.push(cryptoCpu());
    const speed = {
      sign: medianOf(speeds.map((s) => s.sign)),
      verify: medianOf(speeds.map((s) => s.verify)),
    };
    const own = OWN_SIGNS * speed.sign + OWN_VERIFIES * speed.verify;
    const inWindow = run.latencies.length;
    const cpuOf = (group: string) => (after.groups.get(group) ?? 0) - (before.groups.get(group) ?? 0);
    const devnetVerifies = devnetAfter.verifies - (await devnetBefore).verifies;
    const inMetrics = async (name: string) =>
      gaugeValue(metrics, name) - gaugeValue(await metricsBefore, name);
    const scoresDrawn = await inMetrics('tokenproxy_scores_drawn_total');
    const drawSeconds = await inMetrics('tokenproxy_score_draw_seconds_total');
    const markerSeconds = await inMetrics('tokenproxy_score_marker_held_seconds_total');
    // The serial part of the scores drawn: nextval's cost each (bench/score-draw-cost.ts).
    const perDraw = await nextvalSeconds(database.url);
    const serialSeconds = scoresDrawn * perDraw;
    const wall = (after.at - before.at) / 1000;
    const rawBytes = await meanRawBytes(database.url, run.ticketIds);
    ceiling.sample();
    console.log(
      `  ${formatEfficiency({
        hostCpu: (cpuOf('service') + cpuOf('postgres')) / inWindow / own,
        ...rowWritesOf(writesBefore, writesAfter, run.ticketIds.length),
        wal: Number(walAfter.bytes - walBefore.bytes) / run.ticketIds.length / rawBytes,
        scoreLockUnits: (serialSeconds / inWindow) * ceiling.median,
        scoreLockHeldPercent: (serialSeconds / wall) * 100,
        devnet: cpuOf('devnet') / (devnetVerifies * speed.verify),
      })}`,
    );
    console.log(
      `  (own signatures ${OWN_SIGNS} signs + ${OWN_VERIFIES} verifies = ${(own * 1000).toFixed(3)} ms a transfer; ` +
        `devnet ${(devnetVerifies / inWindow).toFixed(1)} verifies a transfer; raw tx ${rawBytes.toFixed(0)} bytes; ` +
        `scores ${(scoresDrawn / inWindow).toFixed(2)} drawn a transfer at ${(perDraw * 1e6).toFixed(2)} us of nextval each ` +
        `(the serial part); drawing statements ${((drawSeconds * 1000) / inWindow).toFixed(3)} ms a transfer, ` +
        `in flight ${((drawSeconds / wall) * 100).toFixed(0)}% of wall time (its upper bound); ` +
        `a marker held ${((markerSeconds / wall) * 100).toFixed(0)}% of wall time; WAL cluster-wide: ` +
        `${((walAfter.records - walBefore.records) / run.ticketIds.length).toFixed(1)} records and ` +
        `${((walAfter.fullPages - walBefore.fullPages) / run.ticketIds.length).toFixed(1)} full-page images a transfer)`,
    );
    return figuresOf(run, (mined - started) / 1000, ceiling);
  } finally {
    await stopAllChildren();
    await database.drop().catch((err) => console.error('could not drop the database:', err));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

/** A WAL position as PostgreSQL writes it (pg_lsn), from its bytes. */
const lsnOf = (bytes: bigint): string =>
  `${(bytes >> 32n).toString(16).toUpperCase()}/${(bytes & 0xffffffffn).toString(16).toUpperCase()}`;

/** The mean size of the run's completed transactions (its tickets'), bytes. */
async function meanRawBytes(url: string, ticketIds: readonly string[]): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      `SELECT avg(octet_length(t.raw_tx))::text AS n
         FROM tickets k JOIN transactions t ON t.txid = k.txid WHERE k.id = ANY($1::uuid[])`,
      [ticketIds],
    );
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}

/**
 * Waits until every backend has reported its row counts: PostgreSQL 15 reports an idle
 * connection's counts up to 10 s late (PGSTAT_IDLE_INTERVAL), so a reading taken sooner missed a
 * pool connection's last writes and counted them in the next window.
 */
const statisticsReported = () => new Promise((r) => setTimeout(r, 11_000));

/** Waits (at most 30 s) until every record of the setup is mined; the devnet mines every second. */
async function untilSetupMined(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const deadline = performance.now() + 30_000; performance.now() < deadline; ) {
      const { rows } = await client.query<{ n: string }>(
        "SELECT count(*)::text AS n FROM transactions WHERE state <> 'mined'",
      );
      if (rows[0]!.n === '0') return;
      await new Promise((r) => setTimeout(r, 200));
    }
    console.log('  (the setup was not all mined after 30 s)');
  } finally {
    await client.end();
  }
}

/** Waits (at most a minute) until every ticket is MINED; the devnet process mines every second by itself. */
async function untilMined(url: string, ticketIds: readonly string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const query = async <T>(sql: string, params?: readonly unknown[]) =>
      (await client.query(sql, params as unknown[])).rows as T[];
    await mineUntilMined(query as Db['query'], { mine: async () => undefined }, ticketIds);
  } finally {
    await client.end();
  }
}

/** Scrapes `/metrics` every `everyMs` until stopped; `stop` tells how long the scrapes took. */
function scrapeEvery(everyMs: number, url: string, authorization: string): { stop(): Promise<string> } {
  const took: number[] = [];
  let last: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    const t = performance.now();
    last = scrapeMetrics(url, authorization).then(() => {
      took.push(performance.now() - t);
    });
  }, everyMs);
  return {
    async stop() {
      clearInterval(timer);
      await last;
      took.sort((a, b) => a - b);
      const at = (p: number) => percentileOf(took, p).toFixed(0);
      return `scrapes of /metrics every ${everyMs} ms in the window: ${took.length}, ${at(50)} ms median, ${at(100)} ms the longest`;
    },
  };
}
