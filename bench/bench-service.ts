// A service for a benchmark, in this process: a temporary data folder, the devnet mining only on
// command, errors-only logs, no rate limits; and a PostgreSQL database of its own for the run.
import type { Db } from '../src/store/db/db.js';
import { type ServiceInTemp, startServiceIn } from '../test/support/service-in-temp.js';
import { freshDatabase } from '../test/support/test-databases.js';

/** Extra flags for every service a bench starts, from BENCH_SERVICE_FLAGS (space-separated). */
export const BENCH_SERVICE_FLAGS: readonly string[] = (process.env.BENCH_SERVICE_FLAGS ?? '')
  .split(' ')
  .filter((f) => f !== '');

/** A bench's service: errors-only logs, no rate limits, then `flags`. */
export function startBenchService(flags: readonly string[]): Promise<ServiceInTemp> {
  return startServiceIn('bench', ['--log-level', 'error', '--no-rate-limit-enabled', ...flags]);
}

/** Runs `fn` with the URL of a fresh database on the server of `serverUrl`, dropped after. */
export async function withBenchDatabase(
  serverUrl: string,
  fn: (url: string) => Promise<void>,
): Promise<void> {
  const database = await freshDatabase(serverUrl, 'bench');
  try {
    await fn(database.url);
  } finally {
    await database.drop();
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
