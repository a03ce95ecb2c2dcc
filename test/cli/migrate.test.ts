// `tokenproxy migrate` as a release step, run as a child process like an operator runs it: the
// status lists pending migrations (exit 3), the command applies them once, the status then says
// up to date (exit 0), and a migration edited after it was applied is reported (exit 1), on
// PGlite and on PostgreSQL.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { loadMigrations } from '../../src/store/migrate.js';
import { freshDatabase, testDatabaseUrl } from '../support/test-databases.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const ENTRY =
  "import { main } from './src/cli/main.ts'; process.exitCode = await main(process.argv.slice(1));";
const VERSIONS = loadMigrations().map((m) => m.version);

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function cli(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', ENTRY, 'migrate', ...args],
      { cwd: ROOT, env: { ...withoutDataDir(), ...env }, timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The test's own environment, without a data folder a developer may have set. */
function withoutDataDir(): NodeJS.ProcessEnv {
  const { TOKENPROXY_DATA_DIR: _, ...env } = process.env;
  return env;
}

function states(run: Run): string[] {
  return run.stdout
    .trim()
    .split('\n')
    .map((line) => line.split('\t').slice(0, 2).join(' '));
}

async function releaseStep(target: readonly string[], tamper: () => Promise<void>): Promise<void> {
  const before = await cli([...target, '--status']);
  assert.equal(before.code, 3, before.stderr);
  assert.deepEqual(
    states(before),
    VERSIONS.map((v) => `${v} pending`),
  );
  const applied = await cli(target);
  assert.equal(applied.code, 0, applied.stderr);
  assert.equal(applied.stdout, `applied: ${VERSIONS.join(', ')}\n`);
  const again = await cli(target);
  assert.equal(again.stdout, 'up to date: no migration to apply\n');
  const upToDate = await cli([...target, '--status']);
  assert.equal(upToDate.code, 0, upToDate.stderr);
  assert.deepEqual(
    states(upToDate),
    VERSIONS.map((v) => `${v} applied`),
  );
  await tamper();
  const edited = await cli([...target, '--status']);
  assert.equal(edited.code, 1);
  assert.match(edited.stdout, new RegExp(`${VERSIONS[0]}\tedited`));
}

describe('tokenproxy migrate', () => {
  const cleanups: (() => Promise<void>)[] = [];
  after(async () => {
    for (const c of cleanups) await c();
  });

  it('on PGlite in a data folder', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tokenproxy-migrate-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    await releaseStep(['--data-dir', dataDir], async () => {
      const { openPgliteDb } = await import('../../src/store/db/pglite-db.js');
      const db = await openPgliteDb(dataDir);
      await db.query("UPDATE schema_migrations SET checksum = 'x' WHERE version = $1", [VERSIONS[0]!]);
      await db.close();
    });
  });

  it('--json answers the same as JSON', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tokenproxy-migrate-json-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const applied = await cli(['--data-dir', dataDir, '--json']);
    assert.equal(applied.code, 0, applied.stderr);
    assert.deepEqual(JSON.parse(applied.stdout), { applied: VERSIONS });
    const status = await cli(['--data-dir', dataDir, '--status', '--json']);
    assert.equal(status.code, 0, status.stderr);
    const { migrations } = JSON.parse(status.stdout) as { migrations: { version: string; state: string }[] };
    assert.deepEqual(
      migrations.map((m) => `${m.version} ${m.state}`),
      VERSIONS.map((v) => `${v} applied`),
    );
  });

  it('in production with no roles named (the release step of deploy/): migrate needs no role', {
    skip: testDatabaseUrl === undefined && 'set TEST_DATABASE_URL',
  }, async () => {
    const fresh = await freshDatabase(testDatabaseUrl!, 'migrate_prod');
    cleanups.push(() => fresh.drop());
    const env = { TOKENPROXY_ENV: 'production', DATABASE_URL: fresh.url, ARC_URL: 'https://arc.example.com' };
    const status = await cli(['--status'], env);
    assert.equal(status.code, 3, status.stderr);
    const applied = await cli([], env);
    assert.equal(applied.code, 0, applied.stderr);
    assert.equal(applied.stdout, `applied: ${VERSIONS.join(', ')}\n`);
  });

  it('on PostgreSQL', { skip: testDatabaseUrl === undefined && 'set TEST_DATABASE_URL' }, async () => {
    const fresh = await freshDatabase(testDatabaseUrl!, 'migrate');
    cleanups.push(() => fresh.drop());
    await releaseStep(['--database-url', fresh.url], async () => {
      const client = new pg.Client({ connectionString: fresh.url });
      await client.connect();
      await client.query("UPDATE schema_migrations SET checksum = 'x' WHERE version = $1", [VERSIONS[0]]);
      await client.end();
    });
  });
});
