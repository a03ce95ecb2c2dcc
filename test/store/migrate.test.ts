// Migrations: applied once, in order, recorded; safe to run again and concurrently;
// edited or misnamed files refused; found from dist/ as well as from src/.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openPostgresDb } from '../../src/store/db/postgres-db.js';
import { loadMigrations, migrate, migrationsDir, migrationsDirFrom } from '../../src/store/migrate.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { testDatabaseUrl, testTargets } from '../support/test-databases.js';

const packageRoot = fileURLToPath(new URL('../../', import.meta.url));

const EXPECTED_TABLES = [
  'address_balance_parts',
  'address_blacklist',
  'address_freeze_events',
  'address_freezes',
  'api_keys',
  'approval_policy',
  'balance_total_parts',
  'block_headers',
  'control_events',
  'delivery_attempts',
  'event_state_counts',
  'events',
  'faucet_grants',
  'funding_outputs',
  'funding_reserve',
  'funding_transactions',
  'idempotency_keys',
  'idempotency_prepared',
  'issuer_pause',
  'merkle_proofs',
  'mint_allowance_spends',
  'mint_allowances',
  'proposal_votes',
  'proposals',
  'schema_migrations',
  'seized_outputs',
  'seizures',
  'settings',
  'subscription_addresses',
  'subscription_cursor',
  'subscription_delivery_attempts',
  'subscription_events',
  'subscriptions',
  'ticket_status_counts',
  'tickets',
  'token_outputs',
  'transaction_addresses',
  'transactions',
  'watched_blocks',
];

function tempMigrations(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'tokenproxy-migrations-'));
  for (const [name, sql] of Object.entries(files)) writeFileSync(join(dir, name), sql);
  return dir;
}

describe('migration files', () => {
  test('the service’s migrations folder is src/store/migrations and holds 001_init first', () => {
    assert.equal(migrationsDir(), join(packageRoot, 'src', 'store', 'migrations'));
    const versions = loadMigrations().map((m) => m.version);
    assert.equal(versions[0], '001_init');
    assert.deepStrictEqual(versions, [...versions].sort());
  });

  test('from a compiled module in dist/store the folder is still src/store/migrations', () => {
    const distStore = mkdtempSync(join(tmpdir(), 'tokenproxy-pkg-'));
    try {
      writeFileSync(join(distStore, 'package.json'), '{}');
      mkdirSync(join(distStore, 'dist', 'store'), { recursive: true });
      assert.equal(
        migrationsDirFrom(join(distStore, 'dist', 'store')),
        join(distStore, 'src', 'store', 'migrations'),
      );
      assert.equal(migrationsDirFrom(join(packageRoot, 'dist', 'store')), migrationsDir());
    } finally {
      rmSync(distStore, { recursive: true, force: true });
    }
  });

  test('misnamed files and duplicate numbers are refused', () => {
    const misnamed = tempMigrations({ '1_init.sql': 'SELECT 1' });
    const duplicate = tempMigrations({ '001_a.sql': 'SELECT 1', '001_b.sql': 'SELECT 1' });
    try {
      assert.throws(() => loadMigrations(misnamed), /1_init\.sql is not named NNN_name\.sql/);
      assert.throws(() => loadMigrations(duplicate), /two migrations numbered 001/);
    } finally {
      rmSync(misnamed, { recursive: true, force: true });
      rmSync(duplicate, { recursive: true, force: true });
    }
  });
});

describeOnEachDb('migrate', { migrate: false }, (fresh) => {
  const temps: string[] = [];

  after(async () => {
    for (const dir of temps) rmSync(dir, { recursive: true, force: true });
  });

  test('applies every migration once, in order, then nothing', async () => {
    const all = loadMigrations().map((m) => m.version);
    assert.deepStrictEqual(await migrate(fresh.db), { applied: all });
    assert.deepStrictEqual(await migrate(fresh.db), { applied: [] });
    const recorded = await fresh.db.query<{ version: string }>(
      'SELECT version FROM schema_migrations ORDER BY version',
    );
    assert.deepStrictEqual(
      recorded.map((r) => r.version),
      all,
    );
    const tables = await fresh.db.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables
        WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
    );
    assert.deepStrictEqual(
      tables.map((t) => t.table_name),
      EXPECTED_TABLES,
    );
  });

  test('a failing migration leaves nothing behind and stops the later ones', async () => {
    const dir = tempMigrations({
      '101_good.sql': 'CREATE TABLE mig_good (x int);',
      '102_bad.sql': 'CREATE TABLE mig_bad (x int); SELECT no_such_column FROM mig_bad;',
      '103_later.sql': 'CREATE TABLE mig_later (x int);',
    });
    temps.push(dir);
    await assert.rejects(migrate(fresh.db, { dir }), /no_such_column/);
    const tables = await fresh.db.query<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name LIKE 'mig_%' ORDER BY 1",
    );
    assert.deepStrictEqual(tables, [{ name: 'mig_good' }]);
    const versions = await fresh.db.query<{ version: string }>(
      "SELECT version FROM schema_migrations WHERE version > '1' ORDER BY 1",
    );
    assert.deepStrictEqual(versions, [{ version: '101_good' }]);
  });

  test('a migration edited after it was applied stops the start', async () => {
    const dir = tempMigrations({ '201_settled.sql': 'CREATE TABLE settled (x int);' });
    temps.push(dir);
    assert.deepStrictEqual(await migrate(fresh.db, { dir }), { applied: ['201_settled'] });
    writeFileSync(join(dir, '201_settled.sql'), 'CREATE TABLE settled (x bigint);');
    await assert.rejects(migrate(fresh.db, { dir }), /201_settled was edited after it was applied/);
  });
});

describe('concurrent migrate on postgres', { skip: testDatabaseUrl === undefined }, () => {
  test('several processes migrating one database at once apply each migration exactly once', async () => {
    const [postgres] = testTargets().filter((t) => t.name === 'postgres');
    assert.ok(postgres && testDatabaseUrl);
    const fresh = await postgres.fresh({ migrate: false });
    const schema = fresh.schema;
    assert.ok(schema);
    const others = await Promise.all(
      [1, 2, 3].map(() => openPostgresDb(testDatabaseUrl!, { schema, max: 2 })),
    );
    try {
      const results = await Promise.all([fresh.db, ...others].map((db) => migrate(db)));
      const appliedEverywhere = results.flatMap((r) => r.applied).sort();
      assert.deepStrictEqual(
        appliedEverywhere,
        loadMigrations().map((m) => m.version),
      );
      const [count] = await fresh.db.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations');
      assert.equal(count?.n, readdirSync(migrationsDir()).filter((f) => f.endsWith('.sql')).length);
    } finally {
      await Promise.all(others.map((db) => db.close()));
      await fresh.dispose();
    }
  });
});
