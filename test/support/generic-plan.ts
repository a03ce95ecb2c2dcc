// The plan PostgreSQL runs for a prepared statement, explained, not run: on a connection as it
// is set, or planned once (a generic plan, for any values) as a write transaction plans its
// statements (store/db/postgres-db.ts, `plan_cache_mode = force_generic_plan`); and the tables a
// plan reads whole.
import type { Queryable, SqlValue } from '../../src/store/db/db.js';

/** A parameter as an SQL literal (EXECUTE inside EXPLAIN takes no bound parameters). */
function sqlLiteral(value: SqlValue): string {
  const quoted = (text: string) => `'${text.replaceAll("'", "''")}'`;
  if (value === null) return 'NULL';
  if (value instanceof Uint8Array) return quoted(`\\x${Buffer.from(value).toString('hex')}`);
  if (value instanceof Date) return quoted(value.toISOString());
  if (Array.isArray(value))
    return quoted(
      `{${value
        .map((v) =>
          v === null ? 'NULL' : typeof v === 'string' ? `"${v.replaceAll('"', '\\"')}"` : String(v),
        )
        .join(',')}}`,
    );
  return quoted(String(value));
}

/**
 * The plan PostgreSQL runs for `sql` prepared on this connection (by its `plan_cache_mode`) with
 * `params`, as EXPLAIN's JSON; `inspect` runs while the statement is still prepared.
 */
export async function preparedPlanOf(
  q: Queryable,
  sql: string,
  params: readonly SqlValue[],
  inspect: (name: string) => Promise<void> = async () => undefined,
): Promise<string> {
  await q.query(`PREPARE plan_check AS ${sql}`);
  try {
    const args = params.map(sqlLiteral).join(', ');
    const plan = await q.query(`EXPLAIN (FORMAT JSON) EXECUTE plan_check${args === '' ? '' : `(${args})`}`);
    await inspect('plan_check');
    return JSON.stringify(plan);
  } finally {
    await q.query('DEALLOCATE plan_check');
  }
}

/** The generic plan of `sql` with `params`, as EXPLAIN's JSON; run inside a transaction. */
export async function genericPlanOf(
  tx: Queryable,
  sql: string,
  params: readonly SqlValue[],
): Promise<string> {
  await tx.query('SET LOCAL plan_cache_mode = force_generic_plan');
  return preparedPlanOf(tx, sql, params, async (name) => {
    // The plan explained is the generic one: PostgreSQL counts the plans it made.
    const [made] = await tx.query<{ generic: string; custom: string }>(
      'SELECT generic_plans AS generic, custom_plans AS custom FROM pg_prepared_statements WHERE name = $1',
      [name],
    );
    if (Number(made?.generic) !== 1 || Number(made?.custom) !== 0)
      throw new Error(`expected one generic plan, PostgreSQL made ${JSON.stringify(made)}`);
  });
}

/** The tables a plan reads by sequential scan (Seq Scan nodes, at any depth). */
export function seqScannedTables(planJson: string): string[] {
  const found: string[] = [];
  const walk = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    const n = node as Record<string, unknown>;
    if (n['Node Type'] === 'Seq Scan' && typeof n['Relation Name'] === 'string')
      found.push(n['Relation Name']);
    for (const value of Object.values(n)) walk(value);
  };
  walk(JSON.parse(planJson));
  return found;
}
