// bench:api — in one run:
// 1. POST /v2/balance of 20 addresses per request against a bare Fastify route returning fixed
//    JSON (same process, same load tool): requests per second and the ratio (target >= 0.4);
// 2. sustained transfers through POST /v2/transfer to MINED, on the embedded default (PGlite)
//    and, when TEST_DATABASE_URL is set, on PostgreSQL: transfers per second and p50/p99 submit
//    latency.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { pubKeyHashOf } from '../src/domain/address.js';
import { ADMIN_KEY_FILE, type RunningService, startService } from '../src/service.js';
import { unspentOutputs } from '../src/store/wallet-queries.js';
import { mintTokens } from '../src/usecases/mint-tokens.js';
import { buildTransfer, tokenOutput } from '../test/support/build-transfer.js';
import { party } from '../test/support/token-world.js';
import { ceilingOf, measureCryptoSpeed } from './crypto-ceiling.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const TRANSFERS = Number(process.env.BENCH_TRANSFERS ?? 200);
/** `balance` or `transfers` runs only that part (e.g. under --cpu-prof). */
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

async function start(
  flags: string[],
): Promise<{ service: RunningService; adminKey: string; stop: () => Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tokenproxy-bench-'));
  const config = loadConfig({
    argv: [
      '--data-dir',
      dataDir,
      '--port',
      '0',
      '--block-interval-ms',
      '0',
      '--log-level',
      'error',
      '--no-rate-limit-enabled',
      ...flags,
    ],
    env: {},
  });
  const service = await startService(config);
  const adminKey = readFileSync(join(dataDir, ADMIN_KEY_FILE), 'utf8').trim();
  return {
    service,
    adminKey,
    stop: async () => {
      await service.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function balanceBench(): Promise<void> {
  const bare = Fastify();
  const fixed = Array.from({ length: 20 }, (_, i) => ({ address: `addr${i}`, amt: 100_000, precised: 1 }));
  bare.post('/v2/balance', async () => fixed);
  const bareUrl = await bare.listen({ host: '127.0.0.1', port: 0 });
  const { service, adminKey, stop } = await start([]);
  try {
    const holders = Array.from({ length: 20 }, (_, i) => party(`bench holder ${i}`).address);
    for (const to of holders.slice(0, 5))
      await mintTokens(service.parts.ctx, service.parts.keys.mint, { to, amount: 100_000n });
    const body = JSON.stringify(holders);
    const auth = { authorization: `Bearer ${adminKey}` };
    // Rounds interleave the baseline and the service, so machine load hits both; median round.
    const rounds: { ours: number; baseline: number }[] = [];
    for (let r = 0; r < 3; r++) {
      const baseline = await rps(`${bareUrl}/v2/balance`, body);
      const ours = await rps(`${service.url}/v2/balance`, body, auth);
      rounds.push({ ours, baseline });
    }
    const median = [...rounds].sort((x, y) => x.ours / x.baseline - y.ours / y.baseline)[1]!;
    console.log(`balance rounds (ratio): ${rounds.map((r) => (r.ours / r.baseline).toFixed(2)).join(' ')}`);
    console.log(
      `balance (20 addresses/request): ${median.ours.toFixed(0)} req/s; bare Fastify fixed JSON: ${median.baseline.toFixed(0)} req/s; ratio ${(median.ours / median.baseline).toFixed(2)} (target >= 0.4)`,
    );
  } finally {
    await stop();
    await bare.close();
  }
}

async function transferBench(label: string, flags: string[]): Promise<void> {
  const { service, adminKey, stop } = await start(flags);
  try {
    const { ctx, keys, devnet } = service.parts;
    const senders = Array.from({ length: 20 }, (_, i) => party(`bench sender ${i}`));
    for (let i = 0; i < TRANSFERS; i++) {
      await mintTokens(ctx, keys.mint, { to: senders[i % senders.length]!.address, amount: 1_000_000n });
    }
    await devnet!.mine(1);
    const recipient = party('bench recipient');
    const feePkh = pubKeyHashOf(ctx.token.feeAddress)!;
    const out = (o: Parameters<typeof tokenOutput>[0], amt: bigint) =>
      tokenOutput(o, amt, ctx.token.tokenId, ctx.token.approver);
    const raws: string[] = [];
    for (const s of senders) {
      const coins = await unspentOutputs(ctx.db, {
        addresses: [s.address],
        page: 1,
        size: 1000,
        order: 'asc',
      });
      for (const coin of coins) {
        const known = { ...coin, lockingScript: coin.script, state: 'unspent' as const };
        const outputs = [out(recipient, 500_000n), out(feePkh, 100n), out(s, coin.amount - 500_100n)];
        raws.push(Buffer.from(buildTransfer({ inputs: [known], outputs, signer: s })).toString('base64'));
      }
    }
    const latencies: number[] = [];
    const ticketIds: string[] = [];
    const started = performance.now();
    const queue = [...raws];
    const submitNext = async (): Promise<void> => {
      for (let rawtx = queue.shift(); rawtx !== undefined; rawtx = queue.shift()) {
        const t = performance.now();
        const res = await fetch(`${service.url}/v2/transfer`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${adminKey}` },
          body: JSON.stringify({ rawtx }),
        });
        latencies.push(performance.now() - t);
        if (!res.ok) throw new Error(`transfer refused: ${res.status} ${await res.text()}`);
        ticketIds.push(await res.text());
      }
    };
    await Promise.all(Array.from({ length: 16 }, submitNext));
    await devnet!.mine(1);
    for (;;) {
      const rows = await ctx.db.query<{ n: string }>(
        "SELECT count(*) AS n FROM tickets WHERE status = 'MINED' AND id = ANY($1::uuid[])",
        [ticketIds],
      );
      if (Number(rows[0]!.n) === ticketIds.length) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const seconds = (performance.now() - started) / 1000;
    const ceiling = ceilingOf(measureCryptoSpeed());
    latencies.sort((a, b) => a - b);
    const pct = (p: number) =>
      latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!.toFixed(1);
    console.log(
      `${label}: ${ticketIds.length} transfers to MINED in ${seconds.toFixed(1)} s = ${(ticketIds.length / seconds).toFixed(1)}/s; submit latency p50 ${pct(50)} ms, p99 ${pct(99)} ms; crypto-only ceiling ${ceiling.toFixed(0)}/s (same run); ratio ${(ticketIds.length / seconds / ceiling).toFixed(3)}`,
    );
  } finally {
    await stop();
  }
}

if (ONLY !== 'transfers') await balanceBench();
if (ONLY !== 'balance') await transferBench('transfers, embedded (PGlite + devnet)', []);
const pgUrl = process.env.TEST_DATABASE_URL;
if (ONLY === 'balance') {
  // done
} else if (pgUrl !== undefined) {
  const name = `tokenproxy_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  try {
    const url = new URL(pgUrl);
    url.pathname = `/${name}`;
    await transferBench('transfers, PostgreSQL + devnet', ['--database-url', url.href]);
  } finally {
    await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
    await admin.end();
  }
} else {
  console.log('transfers, PostgreSQL: skipped (set TEST_DATABASE_URL)');
}
