// Row writes per table during a benchmark window, from PostgreSQL's statistics views: inserts,
// updates (and how many were HOT, needing no index change) and deletes per transfer. Where a
// transfer's database CPU goes, row by row. The views lag a moment: read after the window.
import pg from 'pg';

interface TableCounts {
  readonly ins: number;
  readonly upd: number;
  readonly hot: number;
  readonly del: number;
}

export async function tableWrites(url: string): Promise<Map<string, TableCounts>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // Counters of the current transaction are snapshotted; a fresh one reads fresh numbers.
    await client.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await client.query<{
      relname: string;
      ins: string;
      upd: string;
      hot: string;
      del: string;
    }>(
      `SELECT relname, n_tup_ins AS ins, n_tup_upd AS upd, n_tup_hot_upd AS hot, n_tup_del AS del
         FROM pg_stat_user_tables`,
    );
    return new Map(
      rows.map((r) => [
        r.relname,
        { ins: Number(r.ins), upd: Number(r.upd), hot: Number(r.hot), del: Number(r.del) },
      ]),
    );
  } finally {
    await client.end();
  }
}

/** One line per table that changed: inserts, updates (HOT) and deletes per transfer. */
export function describeTableWrites(
  before: Map<string, TableCounts>,
  after: Map<string, TableCounts>,
  transfers: number,
): string[] {
  const per = (n: number) => (n / transfers).toFixed(2);
  const lines: string[] = [];
  for (const [table, a] of after) {
    const b = before.get(table) ?? { ins: 0, upd: 0, hot: 0, del: 0 };
    const d = { ins: a.ins - b.ins, upd: a.upd - b.upd, hot: a.hot - b.hot, del: a.del - b.del };
    if (d.ins + d.upd + d.del === 0) continue;
    lines.push(
      `${table}: ${per(d.ins)} inserted, ${per(d.upd)} updated (${per(d.hot)} HOT), ${per(d.del)} deleted`,
    );
  }
  return lines.sort();
}

/**
 * Transactions committed in the database so far (reads outside a transaction count one each):
 * the difference across a window, per transfer, is what batching across processes changes.
 */
export async function databaseCommits(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await client.query<{ n: string }>(
      'SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()',
    );
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}
