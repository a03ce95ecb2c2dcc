// bench:api — in one run:
// 1. POST /v2/balance of 20 addresses per request against a bare Fastify route returning fixed
//    JSON (same process, same load tool): requests per second and the ratio (target >= 0.4);
// 2. sustained transfers through POST /v2/transfer for at least 10 s (bench/api-transfers.ts),
//    on the embedded default (PGlite) and, when TEST_DATABASE_URL is set, on PostgreSQL:
//    transfers per second, p50/p99 submit latency and the ratio to the crypto-only ceiling.

import autocannon from 'autocannon';
import Fastify from 'fastify';
import { apiContextOf } from '../src/compose.js';
import { mintTokens } from '../src/usecases/supply/mint-tokens.js';
import { party } from '../test/support/token-world.js';
import { processTransfers } from './api-processes.js';
import { describeFigures, sustainedTransfers } from './api-transfers.js';
import { BENCH_SERVICE_FLAGS, startBenchService, withBenchDatabase } from './bench-service.js';
import { medianBy } from './median.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** Transfers prepared per database: enough for BENCH_TRANSFER_SECONDS at the rate expected there. */
const TRANSFERS_EMBEDDED = Number(process.env.BENCH_TRANSFERS ?? 5_000);
const TRANSFERS_POSTGRES = Number(process.env.BENCH_TRANSFERS ?? 15_000);
/** `balance`, `transfers` or `processes` (the PostgreSQL + ARC run alone) runs only that part. */
const ONLY = process.env.BENCH_ONLY;

async function rps(url: string, body?: string, headers: Record<string, string> = {}): Promise<number> {
  const result = await autocannon({
    url,
    connections: 16,
    duration: SECONDS,
    method: body === undefined ? 'GET' : 'POST',
    ...(body !== undefined && { body, headers: { 'content-type': 'application/json', ...headers } }),
  });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
}

async function balanceBench(): Promise<void> {
  const bare = Fastify();
  const fixed = Array.from({ length: 20 }, (_, i) => ({ address: `addr${i}`, amt: 100_000, precised: 1 }));
  bare.post('/v2/balance', async () => fixed);
  const bareUrl = await bare.listen({ host: '127.0.0.1', port: 0 });
  const { service, adminKey, stop } = await startBenchService([]);
  try {
    const holders = Array.from({ length: 20 }, (_, i) => party(`bench holder ${i}`).address);
    for (const to of holders.slice(0, 5))
      await mintTokens(apiContextOf(service.parts), service.parts.keys.mint, { to, amount: 100_000n });
    const body = JSON.stringify(holders);
    const auth = { authorization: `Bearer ${adminKey}` };
    // Rounds interleave the baseline and the service, so machine load hits both; median round.
    const rounds: { ours: number; baseline: number }[] = [];
    for (let r = 0; r < 3; r++) {
      const baseline = await rps(`${bareUrl}/v2/balance`, body);
      const ours = await rps(`${service.url}/v2/balance`, body, auth);
      rounds.push({ ours, baseline });
    }
    const median = medianBy(rounds, (r) => r.ours / r.baseline);
    console.log(`balance rounds (ratio): ${rounds.map((r) => (r.ours / r.baseline).toFixed(2)).join(' ')}`);
    console.log(
      `balance (20 addresses/request): ${median.ours.toFixed(0)} req/s; bare Fastify fixed JSON: ${median.baseline.toFixed(0)} req/s; ratio ${(median.ours / median.baseline).toFixed(2)} (target >= 0.4)`,
    );
  } finally {
    await stop();
    await bare.close();
  }
}

async function transferBench(label: string, flags: string[], count: number): Promise<void> {
  const { service, adminKey, stop } = await startBenchService([...flags, ...BENCH_SERVICE_FLAGS]);
  try {
    console.log(describeFigures(label, await sustainedTransfers(service, adminKey, count)));
  } finally {
    await stop();
  }
}

if (ONLY !== 'transfers' && ONLY !== 'processes') await balanceBench();
if (ONLY !== 'balance' && ONLY !== 'processes')
  await transferBench('transfers, embedded (PGlite + devnet)', [], TRANSFERS_EMBEDDED);
const pgUrl = process.env.TEST_DATABASE_URL;
if (ONLY === 'balance') {
  // done
} else if (pgUrl !== undefined) {
  if (ONLY !== 'processes')
    await withBenchDatabase(pgUrl, (url) =>
      transferBench('transfers, PostgreSQL + devnet', ['--database-url', url], TRANSFERS_POSTGRES),
    );
  console.log(
    describeFigures(
      'transfers, PostgreSQL + ARC (service, devnet and wallets each in its own process)',
      await processTransfers(pgUrl, TRANSFERS_POSTGRES),
    ),
  );
} else {
  console.log('transfers, PostgreSQL: skipped (set TEST_DATABASE_URL)');
}
