// bench:soak: the service in this process (embedded devnet mining a block a second; PGlite, or
// PostgreSQL in a fresh database on the server of DATABASE_URL) under a steady load for
// SOAK_SECONDS (default 240): SOAK_WALLETS wallets (8) transferring SOAK_RATE times a second (20)
// among themselves (each wallet with an API key of its own), and SOAK_READS reads a second (60)
// of balances, unspent outputs, the change feed and tickets (soak-traffic.ts). Printed: transfers
// answered, 503 FUNDING_EXHAUSTED, other refusals, balance answers that were no value the store
// held while they ran, and the growth of the process's heap plus external memory (after a full
// GC) per 1,000 transfers, between two quiet moments: after a warm-up (start-up, caches, the
// pool's first splits, the JIT compiling what the load reaches: a quarter of the run, at least
// 60 s and SOAK_WARMUP_TRANSFERS (1,000) transfers, at most half the run) and at the end. At
// each, the load is paused and drained and the devnet's bounded cache of recent blocks' coins is
// let go (HOT_BLOCKS empty blocks mined: which coins it holds depends on when the pool's last
// split was mined, up to 20,000 of them). Under load memory is sampled every SOAK_SAMPLE_SECONDS
// (15) for its range. Targets: 0, 0, 0 and at most 0.5 MB.
// As a speed figure, the latencies, with their ratio to an idle baseline measured at the start
// of the run. Run with --expose-gc (the npm script does).
// At most a second's worth of transfers (and of reads) run at once: a due one is skipped, and
// counted, while that many are under way, so a machine too slow for the rate shows as a lower
// rate rather than as a queue that buries the service.
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';
import { apiContextOf } from '../src/compose.js';
import { HOT_BLOCKS } from '../src/ledger/devnet/live-outputs.js';
import type { RunningService } from '../src/service.js';
import { createApiKey } from '../src/store/access/api-keys-store.js';
import { sendFromHeldAddress } from '../src/usecases/supply/send-from-held-address.js';
import { party } from '../test/support/token-world.js';
import { BENCH_SERVICE_FLAGS, startBenchService, withBenchDatabase } from './bench-service.js';
import { atRate, percentile, Traffic } from './soak-traffic.js';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 240);
const RATE = Number(process.env.SOAK_RATE ?? 20);
const READS = Number(process.env.SOAK_READS ?? 60);
const WALLETS = Number(process.env.SOAK_WALLETS ?? 8);
const SAMPLE_SECONDS = Number(process.env.SOAK_SAMPLE_SECONDS ?? 15);
/** A folder: heap snapshots written there at the two quiet moments (compare with heap-diff.ts). */
const SNAPSHOTS = process.env.SOAK_HEAP_SNAPSHOTS;
const COINS_PER_WALLET = 25;
const BASELINE_SECONDS = 5;
const WARMUP_SECONDS = Math.max(60, SECONDS / 4);
/**
 * The warm-up also lasts until this many transfers (the JIT's work follows the load done, not the
 * clock), but at most half the run.
 */
const WARMUP_TRANSFERS = Number(process.env.SOAK_WARMUP_TRANSFERS ?? 1000);

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined)
  throw new Error('bench:soak measures memory after a full GC: run node with --expose-gc');

const MB = 1024 * 1024;
/** The heap and external memory after a full GC, and their sum. */
const parts = () => {
  gc();
  const m = process.memoryUsage();
  // Compiled code (V8's code spaces) apart: it grows while the JIT still optimizes new paths,
  // bounded by the program, not by the traffic.
  const code = getHeapSpaceStatistics()
    .filter((s) => s.space_name.startsWith('code'))
    .reduce((sum, s) => sum + s.space_used_size, 0);
  return { heap: m.heapUsed, external: m.external, code, bytes: m.heapUsed + m.external };
};
const memory = () => parts().bytes;

/**
 * Heap plus external memory at a quiet moment: the devnet's whole coins of recent blocks let go
 * (HOT_BLOCKS empty blocks mined), then 2 s after, the least of three readings.
 */
async function quietMemory(service: RunningService): Promise<ReturnType<typeof parts>> {
  await service.parts.devnet?.mine(HOT_BLOCKS);
  await new Promise((r) => setTimeout(r, 2000));
  const readings: ReturnType<typeof parts>[] = [];
  for (let i = 0; i < 3; i++) {
    readings.push(parts());
    await new Promise((r) => setTimeout(r, 500));
  }
  return readings.reduce((least, r) => (r.bytes < least.bytes ? r : least));
}

async function mintCoins(service: RunningService, wallets: readonly ReturnType<typeof party>[]) {
  const { keys } = service.parts;
  const ctx = apiContextOf(service.parts);
  const outputs = wallets.flatMap((w) =>
    Array.from({ length: COINS_PER_WALLET }, () => ({
      op: 'transfer' as const,
      to: w.address,
      amount: 1_000_000n,
    })),
  );
  for (let i = 0; i < outputs.length; i += 99)
    await sendFromHeldAddress(ctx, {
      from: ctx.token.mintAddress,
      key: keys.mint,
      outputs: outputs.slice(i, i + 99),
    });
}

const ms = (v: number) => `${v.toFixed(1)} ms`;

async function soak(label: string, flags: readonly string[]): Promise<void> {
  const running = await startBenchService(['--block-interval-ms', '1000', ...flags, ...BENCH_SERVICE_FLAGS]);
  try {
    const { service } = running;
    const wallets = Array.from({ length: WALLETS }, (_, i) => party(`soak wallet ${i}`));
    await mintCoins(service, wallets);
    const keys: string[] = [];
    for (const w of wallets)
      keys.push(
        (
          await createApiKey(service.parts.ctx.db, service.parts.masterKey, {
            name: w.name,
            scopes: ['read', 'submit'],
          })
        ).key,
      );
    const other = (w: number) => (w + 1 + Math.floor(Math.random() * (WALLETS - 1))) % WALLETS;

    // The baseline: the idle service, one transfer or read at a time.
    const idle = new Traffic(service, wallets, running.adminKey, keys);
    const baselineEnd = performance.now() + BASELINE_SECONDS * 1000;
    for (let i = 0; performance.now() < baselineEnd; i++) {
      const w = i % WALLETS;
      await idle.transfer(wallets[w]!, wallets[other(w)]!);
      await idle.read();
    }
    await idle.close();

    const traffic = new Traffic(service, wallets, running.adminKey, keys);
    const started = performance.now();
    const skipped = { transfers: 0, reads: 0 };
    const load = async (enough: () => boolean) => {
      const done = enough;
      const [t, r] = await Promise.all([
        atRate(RATE, Math.max(4, RATE), done, () => {
          const w = Math.floor(Math.random() * WALLETS);
          return traffic.transfer(wallets[w]!, wallets[other(w)]!);
        }),
        atRate(READS, Math.max(4, READS), done, () => traffic.read()),
      ]);
      skipped.transfers += t;
      skipped.reads += r;
    };
    // Memory is compared at two quiet moments (the load paused, what it left under way done), so
    // that work in flight, which a loaded machine holds longer, does not read as growth.
    const elapsed = () => (performance.now() - started) / 1000;
    await load(
      () =>
        elapsed() >= SECONDS / 2 ||
        (elapsed() >= WARMUP_SECONDS && traffic.counts.transfers >= WARMUP_TRANSFERS),
    );
    const warmedUp = elapsed();
    const from = { transfers: traffic.counts.transfers, ...(await quietMemory(service)) };
    const devnetFrom = service.parts.devnet?.footprint();
    if (SNAPSHOTS !== undefined) writeHeapSnapshot(join(SNAPSHOTS, 'soak-from.heapsnapshot'));
    const resumed = performance.now();
    const underLoad: number[] = [];
    const sampler = setInterval(() => underLoad.push(memory()), SAMPLE_SECONDS * 1000);
    const end = resumed + (SECONDS - warmedUp) * 1000;
    await load(() => performance.now() >= end);
    clearInterval(sampler);
    const to = { transfers: traffic.counts.transfers, ...(await quietMemory(service)) };
    const devnetTo = service.parts.devnet?.footprint();
    if (SNAPSHOTS !== undefined) writeHeapSnapshot(join(SNAPSHOTS, 'soak-to.heapsnapshot'));
    await traffic.close();

    const c = traffic.counts;
    const seconds = (performance.now() - started) / 1000;
    const perK = (bytes: number) => (bytes / MB / Math.max(1, to.transfers - from.transfers)) * 1000;
    const growth = perK(to.bytes - from.bytes);
    const others = [...c.otherRefusals].map(([code, n]) => `${code} x${n}`).join(', ') || 'none';
    const tSoak = c.transferMs.sorted();
    const rSoak = c.readMs.sorted();
    const tIdle = idle.counts.transferMs.sorted();
    const rIdle = idle.counts.readMs.sorted();
    const ratio = (a: number, b: number) => (b > 0 ? `x${(a / b).toFixed(2)}` : 'n/a');
    console.log(
      `bench:soak, ${label} + devnet: ${seconds.toFixed(0)} s at ${RATE} transfers/s and ${READS} reads/s, ${WALLETS} wallets`,
    );
    console.log(
      `  transfers: ${c.transfers} answered (${(c.transfers / seconds).toFixed(1)}/s); 503 FUNDING_EXHAUSTED: ${c.refusedFunding}; other refusals: ${others}; no free coin: ${c.noCoin}; not sent, a second's worth under way: ${skipped.transfers}`,
    );
    console.log(
      `  reads: ${c.reads} (errors ${c.readErrors}; not sent, a second's worth under way: ${skipped.reads}); balance reads ${c.balanceReads}: disagreed with the store ${c.balanceDisagreed} (of which 0 for a funded wallet ${c.balanceZeroForFunded}), not checkable (a transfer of the wallet under way) ${c.balanceUnchecked}`,
    );
    console.log(
      `  memory (heap + external after a full GC, load paused): ${(from.bytes / MB).toFixed(1)} MB after the ${warmedUp.toFixed(0)} s warm-up (${from.transfers} transfers) -> ${(to.bytes / MB).toFixed(1)} MB at the end (${to.transfers}): ${growth.toFixed(3)} MB per 1,000 transfers (heap ${perK(to.heap - from.heap).toFixed(3)}, of which compiled code ${perK(to.code - from.code).toFixed(3)}; external ${perK(to.external - from.external).toFixed(3)}); under load ${(Math.min(...underLoad) / MB).toFixed(1)}-${(Math.max(...underLoad) / MB).toFixed(1)} MB`,
    );
    if (devnetFrom !== undefined && devnetTo !== undefined)
      console.log(
        `  devnet (in the service's process) at the same moments: live UTXOs ${devnetFrom.utxos} -> ${devnetTo.utxos} (whole in memory ${devnetFrom.hotCoins} -> ${devnetTo.hotCoins}), headers ${devnetFrom.headers} -> ${devnetTo.headers}, mempool ${devnetFrom.mempool} -> ${devnetTo.mempool}, rejected ${devnetFrom.rejected} -> ${devnetTo.rejected}`,
      );
    console.log(
      `  latency: transfer p50 ${ms(percentile(tSoak, 50))} p99 ${ms(percentile(tSoak, 99))} (p50 ${ratio(percentile(tSoak, 50), percentile(tIdle, 50))} of the idle baseline's ${ms(percentile(tIdle, 50))}); read p50 ${ms(percentile(rSoak, 50))} p99 ${ms(percentile(rSoak, 99))} (p50 ${ratio(percentile(rSoak, 50), percentile(rIdle, 50))} of the idle baseline's ${ms(percentile(rIdle, 50))})`,
    );
    const met =
      c.refusedFunding === 0 && c.balanceDisagreed === 0 && c.balanceZeroForFunded === 0 && growth <= 0.5;
    console.log(`  targets (503s 0, disagreed 0, <= 0.5 MB per 1,000 transfers): ${met ? 'met' : 'NOT met'}`);
  } finally {
    await running.stop();
  }
}

const serverUrl = process.env.DATABASE_URL;
if (serverUrl === undefined || serverUrl === '') await soak('PGlite', []);
else await withBenchDatabase(serverUrl, (url) => soak('PostgreSQL', ['--database-url', url]));
