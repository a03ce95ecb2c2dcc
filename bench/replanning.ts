// bench:replanning — a probe of PostgreSQL's own behaviour that ADR 0014 and 0015 rely on: a
// write transaction's statements are planned once per connection (store/db/postgres-db.ts:
// named statements, `plan_cache_mode = force_generic_plan` for the transaction), and
// PostgreSQL plans them again once their tables' statistics change, so a plan made while the
// ledger was small does not outlive the ANALYZE (autovacuum's, in production) after its growth.
// On the service's own Db, one pooled connection, a table of its own in a fresh database:
//   1. a table of 20 rows, analyzed: the probe's plan reads it whole;
//   2. grown to 60,000 rows, not analyzed: the plan made for 20 rows is still the one run;
//   3. analyzed: the same prepared statement on the same connection reads it by index.
// Step 2 can show nothing when something else empties the connection's plan cache (a reset of
// the shared invalidation queue by other sessions' DDL): the probe then tries again, up to five
// times. This is a probe of the database server, not of the service's code, so it is not in
// the test suite, where other suites' DDL on the same server made it flaky. Prints each step's
// finding and exits 1 when PostgreSQL did not replan. Needs TEST_DATABASE_URL.
import { isDeepStrictEqual } from 'node:util';
import type { Db } from '../src/store/db/db.js';
import { openPostgresDb } from '../src/store/db/postgres-db.js';
import { preparedPlanOf, seqScannedTables } from '../test/support/generic-plan.js';
import { freshDatabase } from '../test/support/test-databases.js';

const PROBE = 'SELECT sum(amount)::text AS total FROM plan_probe WHERE owner = $1';
const ATTEMPTS = 5;

/** Runs the probe as a write transaction does, then the plan its prepared statement holds. */
function planOfProbe(db: Db): Promise<string> {
  return db.transaction(async (tx) => {
    await tx.query(PROBE, ['owner 1']);
    const [prepared] = await tx.query<{ name: string; generic: string }>(
      'SELECT name, generic_plans::text AS generic FROM pg_prepared_statements WHERE statement = $1',
      [PROBE],
    );
    if (prepared === undefined) throw new Error('the statement was not prepared by name on the connection');
    if (Number(prepared.generic) < 1) throw new Error('the statement did not run with a generic plan');
    const plan = await tx.query(`EXPLAIN (FORMAT JSON) EXECUTE ${prepared.name}('owner 1')`);
    return JSON.stringify(plan);
  });
}

/** A table of 20 rows, analyzed, that autovacuum leaves alone: reading it whole is the cheaper plan. */
async function youngProbe(db: Db): Promise<void> {
  await db.query('DROP TABLE IF EXISTS plan_probe');
  await db.query(
    'CREATE TABLE plan_probe (id int PRIMARY KEY, owner text NOT NULL, amount bigint NOT NULL) WITH (autovacuum_enabled = false)',
  );
  await db.query('CREATE INDEX plan_probe_by_owner ON plan_probe (owner)');
  await db.query("INSERT INTO plan_probe SELECT i, 'owner ' || (i % 5), i FROM generate_series(1, 20) i");
  await db.query('ANALYZE plan_probe');
}

async function main(): Promise<number> {
  const url = process.env.TEST_DATABASE_URL;
  if (url === undefined || url === '') throw new Error('bench:replanning needs TEST_DATABASE_URL');
  const database = await freshDatabase(url, 'replanning');
  // One connection, so every transaction finds the statement it prepared before.
  const db = await openPostgresDb(database.url, { max: 1 });
  try {
    let kept = false;
    for (let attempt = 1; attempt <= ATTEMPTS && !kept; attempt++) {
      await youngProbe(db);
      const young = seqScannedTables(await planOfProbe(db));
      console.log(`attempt ${attempt}: 20 rows, whole-table reads: [${young.join(', ')}]`);
      await db.query(
        "INSERT INTO plan_probe SELECT i, 'owner ' || (i % 5000), i FROM generate_series(21, 60000) i",
      );
      const grown = seqScannedTables(await planOfProbe(db));
      kept = isDeepStrictEqual(young, ['plan_probe']) && isDeepStrictEqual(grown, ['plan_probe']);
      console.log(
        `  60,000 rows before ANALYZE: [${grown.join(', ')}] (${kept ? 'plan kept' : 'replanned early'})`,
      );
    }
    if (!kept) {
      console.log(`no attempt kept the young plan until ANALYZE in ${ATTEMPTS}: nothing shown`);
      return 1;
    }
    await db.query('ANALYZE plan_probe');
    const replanned = await planOfProbe(db);
    const after = seqScannedTables(replanned);
    const byIndex = replanned.includes('plan_probe_by_owner');
    console.log(`after ANALYZE: whole-table reads [${after.join(', ')}], by index: ${byIndex}`);
    const control = await db.transaction(async (tx) => {
      await tx.query('SET LOCAL plan_cache_mode = force_generic_plan');
      return preparedPlanOf(tx, 'SELECT sum(amount) FROM plan_probe WHERE owner = $1', ['owner 2']);
    });
    console.log(
      `control, prepared after the growth: whole-table reads [${seqScannedTables(control).join(', ')}]`,
    );
    const ok = after.length === 0 && byIndex;
    console.log(ok ? 'PostgreSQL replanned after ANALYZE' : 'PostgreSQL did NOT replan after ANALYZE');
    return ok ? 0 : 1;
  } finally {
    await db.close();
    await database.drop();
  }
}

process.exitCode = await main();
