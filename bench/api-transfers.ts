// bench:api's transfer part: sustained transfers through POST /v2/transfer for at least
// BENCH_TRANSFER_SECONDS (default 10) after BENCH_TRANSFER_WARMUP_SECONDS (default 3) of the same
// load untimed (transfer-submitters.ts), from CONCURRENCY submitters over keep-alive connections,
// with a block mined every second. Setup, untimed: token outputs minted to the senders in
// batches of outputs per transaction, the funding pool filled to one output per transfer, and
// every transfer signed in advance (the pool first: each mint of many outputs needs a large one). Printed: transfers/s answered, submit p50/p99, the time until
// every ticket is MINED, and the ratio to the crypto-only ceiling measured in the same run (the
// median of short samples before and after it).
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { performance } from 'node:perf_hooks';
import { apiContextOf } from '../src/compose.js';
import { pubKeyHashOf } from '../src/domain/address.js';
import type { RunningService } from '../src/service.js';
import { availableFundingCount } from '../src/store/funding/funding-pool.js';
import { unspentOutputs } from '../src/store/wallets/wallet-queries.js';
import { refillFundingPool } from '../src/usecases/funding/pool-refill.js';
import { sendFromHeldAddress } from '../src/usecases/supply/send-from-held-address.js';
import { buildTransfer, tokenOutput } from '../test/support/build-transfer.js';
import { party } from '../test/support/token-world.js';
import { mineUntilMined } from './bench-service.js';
import { countStatements, resetCounts } from './counting-db.js';
import { CeilingSamples } from './crypto-ceiling.js';
import { percentileOf, type SubmitRun, submitTransfers } from './transfer-submitters.js';

const SECONDS = Number(process.env.BENCH_TRANSFER_SECONDS ?? 10);
export const WARMUP_SECONDS = Number(process.env.BENCH_TRANSFER_WARMUP_SECONDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_TRANSFER_CONCURRENCY ?? 32);
const SENDERS = 40;
/** A folder: the timed window's CPU profile is written there (`<label>.cpuprofile`). */
const PROFILE = process.env.BENCH_PROFILE;
/** Outputs per mint transaction (the service's default output limit is 100). */
const MINT_OUTPUTS = 99;

export interface TransferFigures {
  readonly transfers: number;
  readonly seconds: number;
  readonly perSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly toMinedSeconds: number;
  readonly ceiling: number;
  /** How the ceiling was sampled: "median of N samples, low-high". */
  readonly ceilingSamples: string;
  readonly ranOut: boolean;
  readonly warmup: SubmitRun['warmup'];
}

/** Fills the funding pool, mints `count` outputs spread over the senders; returns signed transfers. */
async function prepare(service: RunningService, count: number): Promise<string[]> {
  const { keys, devnet } = service.parts;
  const ctx = apiContextOf(service.parts);
  const senders = Array.from({ length: SENDERS }, (_, i) => party(`bench sender ${i}`));
  const refill = {
    db: ctx.db,
    ledger: ctx.ledger,
    fundingKey: keys.funding,
    feeRate: ctx.feeRate,
    now: ctx.now,
    log: ctx.log,
  };
  while ((await availableFundingCount(ctx.db)) < count + 200) {
    if ((await refillFundingPool(refill, count + 200)) === null)
      throw new Error('the funding reserve ran out');
  }
  await devnet!.mine(1);
  for (let made = 0; made < count; made += MINT_OUTPUTS) {
    const n = Math.min(MINT_OUTPUTS, count - made);
    await sendFromHeldAddress(ctx, {
      from: ctx.token.mintAddress,
      key: keys.mint,
      outputs: Array.from({ length: n }, (_, i) => ({
        op: 'transfer' as const,
        to: senders[(made + i) % SENDERS]!.address,
        amount: 1_000_000n,
      })),
    });
  }
  await devnet!.mine(1);
  const recipient = party('bench recipient');
  const feePkh = pubKeyHashOf(ctx.token.feeAddress)!;
  const out = (o: Parameters<typeof tokenOutput>[0], amt: bigint) =>
    tokenOutput(o, amt, ctx.token.tokenId, ctx.token.approver);
  const raws: string[] = [];
  for (const s of senders) {
    for (let page = 1; ; page++) {
      const coins = await unspentOutputs(ctx.db, { addresses: [s.address], page, size: 1000, order: 'asc' });
      if (coins.length === 0) break;
      for (const coin of coins) {
        const known = { ...coin, lockingScript: coin.script, state: 'unspent' as const };
        const outputs = [out(recipient, 500_000n), out(feePkh, 100n), out(s, coin.amount - 500_100n)];
        raws.push(
          JSON.stringify({
            rawtx: Buffer.from(buildTransfer({ inputs: [known], outputs, signer: s })).toString('base64'),
          }),
        );
      }
    }
  }
  // Interleave senders, as independent wallets would arrive.
  return raws.sort(() => Math.random() - 0.5);
}

export async function sustainedTransfers(
  service: RunningService,
  adminKey: string,
  count: number,
): Promise<TransferFigures> {
  const bodies = await prepare(service, count);
  const { ctx, devnet } = service.parts;
  const ceiling = new CeilingSamples();
  ceiling.sample();
  const counted = process.env.BENCH_DETAIL === '1' ? countStatements(ctx.db).counts : null;
  const profiler = PROFILE === undefined ? null : new Session();
  let profiling: Promise<unknown> = Promise.resolve();
  // The statements are counted and the profile taken in the measured window only.
  const onMeasuring = () => {
    if (counted !== null) resetCounts(counted);
    if (profiler !== null) {
      profiler.connect();
      profiling = profiler.post('Profiler.enable').then(() => profiler.post('Profiler.start'));
    }
  };
  let mining = true;
  const miner = (async () => {
    while (mining) {
      await new Promise((r) => setTimeout(r, 1000));
      if (mining) await devnet!.mine(1);
    }
  })();
  const started = performance.now();
  let run: SubmitRun;
  try {
    run = await submitTransfers({
      url: service.url!,
      authorization: `Bearer ${adminKey}`,
      bodies,
      warmupSeconds: WARMUP_SECONDS,
      seconds: SECONDS,
      concurrency: CONCURRENCY,
      onMeasuring,
    });
  } finally {
    mining = false;
    await miner;
  }
  if (counted !== null) {
    console.log(`statements in the timed window, by time waited (ms), ${run.latencies.length} transfers:`);
    for (const [kind, ms] of [...counted.waited].sort((a, b) => b[1] - a[1]).slice(0, 15))
      console.log(
        `  ${ms.toFixed(0).padStart(7)} ms ${String(counted.kinds.get(kind)).padStart(6)}x  ${kind}`,
      );
  }
  if (profiler !== null) {
    await profiling;
    const { profile } = await profiler.post('Profiler.stop');
    writeFileSync(`${PROFILE}/transfers-${ctx.db.dialect}.cpuprofile`, JSON.stringify(profile));
    profiler.disconnect();
  }
  await mineUntilMined((sql, params) => ctx.db.query(sql, params), devnet!, run.ticketIds);
  const mined = performance.now();
  ceiling.sample();
  return figuresOf(run, (mined - started) / 1000, ceiling);
}

/** The figures of a run: its rate, latencies and ratio to the crypto ceiling of the same run. */
export function figuresOf(run: SubmitRun, toMinedSeconds: number, ceiling: CeilingSamples): TransferFigures {
  return {
    transfers: run.latencies.length,
    seconds: run.seconds,
    perSecond: run.latencies.length / run.seconds,
    p50: percentileOf(run.latencies, 50),
    p99: percentileOf(run.latencies, 99),
    toMinedSeconds,
    ceiling: ceiling.median,
    ceilingSamples: ceiling.describe(),
    ranOut: run.ranOut,
    warmup: run.warmup,
  };
}

export function describeFigures(label: string, f: TransferFigures): string {
  return (
    `${label}: ${f.transfers} transfers in ${f.seconds.toFixed(1)} s = ${f.perSecond.toFixed(0)}/s ` +
    `(all MINED ${f.toMinedSeconds.toFixed(1)} s after the first); submit p50 ${f.p50.toFixed(1)} ms, p99 ${f.p99.toFixed(1)} ms; ` +
    `crypto-only ceiling ${f.ceiling.toFixed(0)}/s (same run: ${f.ceilingSamples}); ratio ${(f.perSecond / f.ceiling).toFixed(3)}; ` +
    `warm-up before the window: ${f.warmup.seconds.toFixed(1)} s, ${f.warmup.transfers} transfers, slowest ${f.warmup.maxMs.toFixed(0)} ms` +
    (f.ranOut ? ' — WARNING: the prepared transfers ran out before the time; raise BENCH_TRANSFERS' : '')
  );
}
