// The plan PostgreSQL runs for a statement planned once (a generic plan, for any values), as a
// write transaction plans its statements (store/postgres-db.ts): the statement is prepared and
// explained with `plan_cache_mode = force_generic_plan`, not run.
import type { Queryable, SqlValue } from '../../src/store/db.js';

/** A parameter as an SQL literal (EXECUTE inside EXPLAIN takes no bound parameters). */
export function sqlLiteral(value: SqlValue): string {
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

/** The generic plan of `sql` with `params`, as EXPLAIN's JSON; run inside a transaction. */
export async function genericPlanOf(
  tx: Queryable,
  sql: string,
  params: readonly SqlValue[],
): Promise<string> {
  await tx.query('SET LOCAL plan_cache_mode = force_generic_plan');
  await tx.query(`PREPARE generic_plan_check AS ${sql}`);
  try {
    const args = params.map(sqlLiteral).join(', ');
    const plan = await tx.query(
      `EXPLAIN (FORMAT JSON) EXECUTE generic_plan_check${args === '' ? '' : `(${args})`}`,
    );
    // The plan explained is the generic one: PostgreSQL counts the plans it made.
    const [made] = await tx.query<{ generic: string; custom: string }>(
      "SELECT generic_plans AS generic, custom_plans AS custom FROM pg_prepared_statements WHERE name = 'generic_plan_check'",
    );
    if (Number(made?.generic) !== 1 || Number(made?.custom) !== 0)
      throw new Error(`expected one generic plan, PostgreSQL made ${JSON.stringify(made)}`);
    return JSON.stringify(plan);
  } finally {
    await tx.query('DEALLOCATE generic_plan_check');
  }
}
