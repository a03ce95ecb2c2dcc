// How PostgreSQL plans the service's statements (store/db/postgres-db.ts). A write transaction's
// statements are planned once (a generic plan); statements outside transactions are planned on
// every run with that run's values; the hot reads run on connections of their own that plan each
// statement once, and those plans scan no table whole where a plan made for the run's values
// would not (the submission claim's generic plan: submission-claims-plan.test.ts).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import pg from 'pg';
import type { Queryable, Row, SqlValue } from '../../src/store/db/db.js';
import { ticketsById } from '../../src/store/tickets/ticket-queries.js';
import { balancesWithStamp, feedStamp } from '../../src/store/wallets/wallet-queries.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { preparedPlanOf, seqScannedTables } from '../support/generic-plan.js';
import { seedTicket, seedTransaction } from '../support/seed-store.js';
import { testDatabaseUrl } from '../support/test-databases.js';

const mode = async (q: Queryable) =>
  (await q.query<{ plan_cache_mode: string }>('SHOW plan_cache_mode'))[0]?.plan_cache_mode;

/** A Queryable that keeps the statements it is asked, answering none. */
function recording(kept: { sql: string; params: readonly SqlValue[] }[]): Queryable {
  return {
    async query<R extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<R[]> {
      kept.push({ sql, params: params ?? [] });
      return [];
    },
  };
}

describeOnEachDb('statement planning', { only: 'postgres' }, (fresh) => {
  it('plans a write transaction once, a statement outside one on every run, and the hot reads once', async () => {
    assert.equal(await fresh.db.transaction((tx) => mode(tx)), 'force_generic_plan');
    // SET LOCAL: the connection goes back to the pool planning every run. Asked at once, the
    // questions take distinct connections (the idle one the transaction used, and new ones).
    const after = await Promise.all(Array.from({ length: 4 }, () => mode(fresh.db)));
    assert.deepEqual(after, Array(4).fill('force_custom_plan'));
    assert.ok(fresh.db.reads !== undefined);
    assert.equal(await mode(fresh.db.reads), 'force_generic_plan');
  });

  it('the hot reads see what committed before them', async () => {
    const reads = fresh.db.reads!;
    const ticket = await seedTicket(fresh.db, { status: 'BROADCASTING' });
    assert.equal((await ticketsById(reads, [ticket])).get(ticket)?.status, 'BROADCASTING');
    await fresh.db.query("UPDATE tickets SET status = 'FAILED' WHERE id = $1", [ticket]);
    assert.equal((await ticketsById(reads, [ticket])).get(ticket)?.status, 'FAILED');
  });

  it("the hot reads' generic plans scan no table whole where planning each run would not", async () => {
    const owners = Array.from({ length: 3000 }, (_, i) => `owner${i}`);
    // Half the outputs' balance changes folded, half pending: both balance tables hold thousands.
    for (let t = 0; t < 60; t++) {
      await seedTransaction(fresh.db, {
        senders: [],
        outputs: Array.from({ length: 100 }, (_, i) => ({
          owner: owners[(t * 100 + i) % 3000]!,
          amount: 10n,
        })),
      });
    }
    const ids: string[] = [];
    for (let t = 0; t < 1000; t++) ids.push(await seedTicket(fresh.db, {}));
    for (const table of ['token_outputs', 'transactions', 'tickets', 'address_balance_parts'])
      await fresh.db.query(`ANALYZE ${table}`);

    const statements: { sql: string; params: readonly SqlValue[] }[] = [];
    const rec = recording(statements);
    await ticketsById(rec, ids.slice(0, 1));
    await ticketsById(rec, ids.slice(0, 2));
    await balancesWithStamp(rec, owners.slice(0, 4));
    await feedStamp(rec);
    assert.equal(statements.length, 4);

    // Connections as the write path's and the hot reads' own: EXECUTE of a prepared statement
    // answers the plan each would run.
    const planOn = async (planning: string) => {
      const client = new pg.Client({
        connectionString: testDatabaseUrl,
        options: `-c plan_cache_mode=${planning} -c search_path=${fresh.schema}`,
      });
      await client.connect();
      const q: Queryable = {
        query: async <R extends Row = Row>(sql: string, params?: readonly SqlValue[]) =>
          (await client.query<R>(sql, params as unknown[] | undefined)).rows,
      };
      try {
        const plans: string[] = [];
        for (const { sql, params } of statements) plans.push(await preparedPlanOf(q, sql, params));
        return plans;
      } finally {
        await client.end();
      }
    };
    const custom = await planOn('force_custom_plan');
    const generic = await planOn('force_generic_plan');
    for (const [i, plan] of generic.entries())
      for (const table of ['token_outputs', 'transactions', 'tickets', 'address_balance_parts'])
        assert.ok(
          !seqScannedTables(plan).includes(table) || seqScannedTables(custom[i]!).includes(table),
          `statement ${i}'s generic plan scans all of ${table}, its custom plan does not: ${plan}`,
        );
  });
});
