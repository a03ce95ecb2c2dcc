// bench:stream: the live change feed (GET /v2/sync/stream) with 1,000 idle and 100 active SSE
// clients, the clients in a process of their own (bench/stream-clients.ts).
//  - backlog: 100 streams from score 0 each receive the whole feed (R records) while 1,000 idle
//    streams are held open; events delivered per second, as a ratio to a bare node:http SSE
//    server sending the same event bytes to the same clients in the same run;
//  - live: with the 100 streams caught up, new transfers are minted and mined; events delivered
//    per second as a ratio to what a perfect fan-out would deliver (records committed per second
//    times 100, over the same window);
//  - memory per idle stream: the service process's heap and RSS before and after the 1,000 idle
//    streams opened (after a GC), and the same for the bare server.
// BENCH_RECORDS (default 300), BENCH_IDLE (1000), BENCH_ACTIVE (100) change the run.
import { fork } from 'node:child_process';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { apiContextOf } from '../src/compose.js';
import { mintTokens } from '../src/usecases/supply/mint-tokens.js';
import { startServiceIn } from '../test/support/service-in-temp.js';
import { party } from '../test/support/token-world.js';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 300);
const IDLE = Number(process.env.BENCH_IDLE ?? 1000);
const ACTIVE = Number(process.env.BENCH_ACTIVE ?? 100);
const LIVE = Math.max(20, Math.round(RECORDS / 5));

type Reply = { kind: string; ms?: number; events?: number; message?: string; fewest?: number };

const clients = fork(new URL('./stream-clients.ts', import.meta.url).pathname, [], {
  execArgv: ['--import', 'tsx'],
});
const replies: Reply[] = [];
const waiters: Array<() => void> = [];
clients.on('message', (m: Reply) => {
  replies.push(m);
  for (const w of waiters.splice(0)) w();
});
async function next(kind: string): Promise<Reply> {
  for (;;) {
    const i = replies.findIndex((r) => r.kind === kind || r.kind === 'error');
    if (i >= 0) {
      const [r] = replies.splice(i, 1);
      if (r!.kind === 'error') throw new Error(r!.message);
      return r!;
    }
    await new Promise<void>((resolve) => waiters.push(resolve));
  }
}
const ask = (message: object, kind: string) => {
  clients.send(message);
  return next(kind);
};

function memory(): { heap: number; rss: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, rss: m.rss };
}
const idlePaths = (prefix: string) =>
  Array.from({ length: IDLE }, (_, i) => `${prefix}?addresses=${party(`bench idle ${i % 50}`).address}`);
const kb = (bytes: number) => (bytes / 1024).toFixed(1);

async function main() {
  await next('ready');
  const service = await startServiceIn('bench-stream', [
    '--log-level',
    'error',
    '--no-rate-limit-enabled',
    '--stream-max-per-client',
    String(IDLE + 2 * ACTIVE + 10),
  ]);
  try {
    const { keys, devnet } = service.service.parts;
    const ctx = apiContextOf(service.service.parts);
    const holders = Array.from({ length: 8 }, (_, i) => party(`bench holder ${i}`));
    const mint = async (n: number) => {
      for (let i = 0; i < n; i++)
        await mintTokens(ctx, keys.mint, {
          to: holders[i % holders.length]!.address,
          amount: BigInt(1000 + i),
        });
      await devnet!.mine(1);
    };
    const feed = async () => {
      const out: { score: number }[] = [];
      for (;;) {
        const res = await fetch(`${service.url}/v1/sync?from=${(out.at(-1)?.score ?? -1) + 1}&limit=5000`);
        const page = (await res.json()) as { score: number }[];
        if (page.length === 0) return out;
        out.push(...page);
      }
    };
    await mint(RECORDS);
    await new Promise((r) => setTimeout(r, 1500));
    const records = await feed();
    const eventsText = records.map((r) => `id: ${r.score}\ndata: ${JSON.stringify(r)}\n\n`).join('');

    // The bare server: the same event bytes to each active client, idle clients held.
    const open = new Set<ServerResponse>();
    const bare = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
      res.write('retry: 2000\n\n');
      if (req.url?.startsWith('/active')) res.write(eventsText);
      open.add(res);
      res.on('close', () => open.delete(res));
    });
    await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
    const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;

    const round = async (url: string, idlePrefix: string, activePath: string) => {
      const before = memory();
      await ask({ kind: 'idle', url, paths: idlePaths(idlePrefix) }, 'idle-open');
      await new Promise((r) => setTimeout(r, 500));
      const withIdle = memory();
      const active = await ask(
        {
          kind: 'active',
          url,
          paths: Array.from({ length: ACTIVE }, () => activePath),
          expect: records.length,
        },
        'active-done',
      );
      return {
        perIdleHeap: (withIdle.heap - before.heap) / IDLE,
        perIdleRss: (withIdle.rss - before.rss) / IDLE,
        rate: (ACTIVE * records.length * 1000) / active.ms!,
      };
    };
    const base = await round(bareUrl, '/idle', '/active');
    await ask({ kind: 'close' }, 'closed');
    const ours = await round(service.url, '/v2/sync/stream', '/v2/sync/stream?from=0');

    // Live: 100 streams open at the tip; LIVE more mints, then a block. Each record's every
    // version (accepted, mined) goes to every stream: compared with a perfect fan-out, which
    // would deliver them all the moment the last commit is made.
    const tip = records.at(-1)!.score;
    await ask(
      {
        kind: 'active',
        url: service.url,
        paths: Array.from({ length: ACTIVE }, () => `/v2/sync/stream?from=${tip}`),
        expect: 0,
      },
      'active-open',
    );
    const started = performance.now();
    await mint(LIVE);
    const committedMs = performance.now() - started;
    // Versions each stream must get: scores drawn after the tip (a rolled-back draw leaves a gap,
    // so the fewest a stream got is taken when nothing more comes).
    const versions = (await feed()).at(-1)!.score - tip;
    let live: Reply & { fewest?: number } = { kind: 'report' };
    for (let i = 0; i < 100; i++) {
      await new Promise((r) => setTimeout(r, 100));
      live = await ask({ kind: 'report' }, 'report');
      if ((live.fewest ?? 0) >= versions || (i > 20 && live.ms! < performance.now() - started - 1000)) break;
    }
    const liveMs = Math.max(live.ms!, committedMs);
    const liveRate = (live.events! * 1000) / liveMs;
    const perfectRate = (ACTIVE * live.fewest! * 1000) / committedMs;
    await ask({ kind: 'close' }, 'closed');
    bare.close();
    for (const r of open) r.destroy();

    console.log(
      `bench:stream  ${IDLE} idle + ${ACTIVE} active SSE clients, ${records.length} records (PGlite)`,
    );
    console.log(
      `backlog: ${Math.round(ours.rate)} events/s delivered; bare node:http SSE ${Math.round(base.rate)} events/s; ratio ${(ours.rate / base.rate).toFixed(3)}`,
    );
    console.log(
      `live:    ${Math.round(liveRate)} events/s delivered while ${LIVE} transfers were minted and mined; a perfect fan-out of the commits ${Math.round(perfectRate)} events/s; ratio ${(liveRate / perfectRate).toFixed(3)} (${live.fewest} record versions to each stream; last event ${Math.round(live.ms! - committedMs)} ms after the last commit)`,
    );
    console.log(
      `memory per idle stream: heap ${kb(ours.perIdleHeap)} KiB, RSS ${kb(ours.perIdleRss)} KiB; bare server heap ${kb(base.perIdleHeap)} KiB, RSS ${kb(base.perIdleRss)} KiB`,
    );
  } finally {
    clients.kill();
    await service.stop();
  }
}

main().catch((err) => {
  console.error(err);
  clients.kill();
  process.exitCode = 1;
});
