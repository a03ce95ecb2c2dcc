// A service for a benchmark, in this process: a temporary data folder, the devnet mining only on
// command, errors-only logs, no rate limits; and a PostgreSQL database of its own for the run.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { ADMIN_KEY_FILE, type RunningService, startService } from '../src/service.js';
import type { Db } from '../src/store/db.js';

export interface BenchService {
  readonly service: RunningService;
  readonly adminKey: string;
  stop(): Promise<void>;
}

export async function startBenchService(flags: readonly string[]): Promise<BenchService> {
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
  return {
    service,
    adminKey: readFileSync(join(dataDir, ADMIN_KEY_FILE), 'utf8').trim(),
    stop: async () => {
      await service.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Runs `fn` with the URL of a fresh database on the server of `serverUrl`, dropped after. */
export async function withBenchDatabase(
  serverUrl: string,
  fn: (url: string) => Promise<void>,
): Promise<void> {
  const name = `tokenproxy_bench_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  try {
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    await fn(url.href);
  } finally {
    await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
    await admin.end();
  }
}

/**
 * Mines blocks until every ticket of `ticketIds` is MINED: one at once, then one a second while
 * some wait (broadcasts go out after the answers, in batches, so a late one waits for the next
 * block). `query` is how the bench reads the database (a counting bench passes its uncounted
 * query). Throws after a minute, naming how many are in each status.
 */
export async function mineUntilMined(
  query: Db['query'],
  devnet: { mine(blocks: number): Promise<unknown> },
  ticketIds: readonly string[],
): Promise<void> {
  await devnet.mine(1);
  const from = performance.now();
  let lastBlock = from;
  for (;;) {
    const rows = await query<{ n: string }>(
      "SELECT count(*) AS n FROM tickets WHERE status = 'MINED' AND id = ANY($1::uuid[])",
      [ticketIds],
    );
    if (Number(rows[0]!.n) === ticketIds.length) return;
    if (performance.now() - lastBlock > 1000) {
      await devnet.mine(1);
      lastBlock = performance.now();
    }
    if (performance.now() - from > 60_000) {
      const by = await query<{ status: string; n: string }>(
        'SELECT status, count(*) AS n FROM tickets WHERE id = ANY($1::uuid[]) GROUP BY status',
        [ticketIds],
      );
      throw new Error(`tickets not MINED after a minute: ${by.map((r) => `${r.status} ${r.n}`).join(', ')}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
