// Statements per transfer during a benchmark window, from pg_stat_statements (BENCH_LOAD_PGSS=1;
// the extension must be preloaded and created in the database TEST_DATABASE_URL names): calls,
// rows and execution time per transfer of the statements run most, by all processes of the
// measured database. Counted, not timed: what batching changes shows through the machine's noise.
import pg from 'pg';

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Forgets what was counted so far (all databases). */
export async function resetStatementStats(url: string): Promise<void> {
  await withClient(url, (c) => c.query('SELECT pg_stat_statements_reset()'));
}

/** The `top` statements by calls in the database `measured` (a URL), per transfer, as lines. */
export async function describeStatementStats(
  url: string,
  measured: string,
  transfers: number,
  top = 20,
): Promise<string[]> {
  const database = new URL(measured).pathname.slice(1);
  return withClient(url, async (c) => {
    const { rows } = await c.query<{ calls: string; rows: string; ms: string; query: string }>(
      `SELECT s.calls, s.rows, s.total_exec_time AS ms, s.query
         FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
        WHERE d.datname = $1 ORDER BY s.calls DESC LIMIT $2`,
      [database, top],
    );
    const total = await c.query<{ calls: string; ms: string }>(
      `SELECT sum(s.calls) AS calls, sum(s.total_exec_time) AS ms
         FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1`,
      [database],
    );
    const per = (n: string | number) => (Number(n) / transfers).toFixed(2);
    return [
      `statements per transfer: ${per(total.rows[0]!.calls)} calls, ${per(total.rows[0]!.ms)} ms executing`,
      ...rows.map(
        (r) =>
          `${per(r.calls)} calls, ${per(r.rows)} rows, ${per(r.ms)} ms: ${r.query.replace(/\s+/g, ' ').slice(0, 110)}`,
      ),
    ];
  });
}
