// The serial part of drawing a change-feed score, measured on the run's own database: writers
// draw without waiting for each other (docs/adr/0020-scores-drawn-under-shared-markers.md), and
// what remains one at a time is nextval itself, which holds the sequence's one page locked while it
// advances it (and WAL-logs it every 32 values). Its whole cost, timed on a sequence made like
// change_score_seq (logged, CACHE 1) against the same statement without it, is an upper bound on
// that serial part.
import pg from 'pg';

const DRAWS = 200_000;

/** nextval's cost a call, seconds: the median of five interleaved pairs of rounds. */
export async function nextvalSeconds(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('CREATE SEQUENCE IF NOT EXISTS bench_draw_cost_seq CACHE 1');
    const timed = async (sql: string) => {
      const t = performance.now();
      await client.query(sql, [DRAWS]);
      return (performance.now() - t) / 1000;
    };
    const costs: number[] = [];
    for (let i = 0; i < 5; i++) {
      const drawing = await timed(
        "SELECT count(nextval('bench_draw_cost_seq')) FROM generate_series(1, $1::int)",
      );
      const bare = await timed('SELECT count(g) FROM generate_series(1, $1::int) AS g');
      costs.push(Math.max(0, drawing - bare) / DRAWS);
    }
    return costs.sort((a, b) => a - b)[costs.length >> 1]!;
  } finally {
    await client.query('DROP SEQUENCE IF EXISTS bench_draw_cost_seq').catch(() => undefined);
    await client.end();
  }
}
