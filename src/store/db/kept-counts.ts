// Counts kept a row per database connection (docs/adr/0021-counts-kept-per-connection.md):
// tickets by status (migration 041) and callback events by state (migration 042). Triggers on
// the counted table add each statement's net change to the writing connection's row of the
// counts table, one column per value; a count is the sum of its column, read from a few rows
// however large the counted table grows. Here: reading them, checking them against a count of
// the table (the audit), and folding the rows of connections that have ended.
import type { Queryable } from './db.js';

/** A kept count: its table, the table and column it counts, and each value's column. */
export interface KeptCounts<V extends string> {
  readonly table: string;
  readonly counted: string;
  readonly by: string;
  /** Each value of `by`, and the column of `table` that counts it. */
  readonly columns: Readonly<Record<V, string>>;
}

/** A value whose kept count differs from a count of the table. */
export interface KeptCountDrift<V extends string> {
  readonly value: V;
  readonly kept: number;
  readonly counted: number;
}

const entries = <V extends string>(kept: KeptCounts<V>) => Object.entries(kept.columns) as [V, string][];

/** Every value's count (0 when none). */
export async function readKeptCounts<V extends string>(
  q: Queryable,
  kept: KeptCounts<V>,
): Promise<Record<V, number>> {
  const rows = await q.query<Record<string, string | null>>(
    `SELECT ${entries(kept)
      .map(([, column]) => `sum(${column})::text AS ${column}`)
      .join(', ')} FROM ${kept.table}`,
  );
  const row = rows[0] ?? {};
  return Object.fromEntries(
    entries(kept).map(([value, column]) => [value, Number(row[column] ?? 0)]),
  ) as Record<V, number>;
}

/**
 * The values whose kept count differs from a count of the table, both read in one statement
 * (only a write that went around the triggers makes one). Reads the whole counted table.
 */
export async function keptCountDrift<V extends string>(
  q: Queryable,
  kept: KeptCounts<V>,
): Promise<KeptCountDrift<V>[]> {
  const values = entries(kept);
  const rows = await q.query<Record<string, string | null>>(
    `SELECT ${values
      .map(
        ([, column], i) =>
          `(SELECT sum(${column}) FROM ${kept.table})::text AS kept_${column},
           count(*) FILTER (WHERE ${kept.by} = $${i + 1})::text AS counted_${column}`,
      )
      .join(', ')}
       FROM ${kept.counted}`,
    values.map(([value]) => value),
  );
  const row = rows[0] ?? {};
  return values
    .map(([value, column]) => ({
      value,
      kept: Number(row[`kept_${column}`] ?? 0),
      counted: Number(row[`counted_${column}`] ?? 0),
    }))
    .filter((d) => d.kept !== d.counted);
}

/**
 * Folds the rows of connections that have ended into backend 0; answers how many rows went. A
 * connection's row is written only by its own transactions, one at a time, so a connection
 * that is gone writes it no more. Should its process id come back meanwhile (a new connection
 * writing the same row), the delete waits for that transaction and folds the row as it wrote
 * it: the counts move between rows, their sums do not change. Two folds at once fold each row
 * once.
 */
export async function foldEndedConnections<V extends string>(
  q: Queryable,
  kept: KeptCounts<V>,
): Promise<number> {
  const columns = entries(kept).map(([, column]) => column);
  const rows = await q.query<{ folded: string }>(
    `WITH gone AS (
       DELETE FROM ${kept.table} c
        WHERE c.backend <> 0 AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = c.backend)
       RETURNING c.*
     ), folded AS (
       INSERT INTO ${kept.table} AS c (backend, ${columns.join(', ')})
       SELECT 0, ${columns.map((c) => `sum(${c})`).join(', ')} FROM gone HAVING count(*) > 0
       ON CONFLICT (backend) DO UPDATE SET ${columns.map((c) => `${c} = c.${c} + EXCLUDED.${c}`).join(', ')}
     )
     SELECT count(*)::text AS folded FROM gone`,
  );
  return Number(rows[0]?.folded ?? 0);
}
