// `tokenproxy start` in production with a configuration that cannot run (no operator keys, no
// master key) refuses before it touches anything: exit 2 with every problem listed, no file in
// the data folder (never keys.json or master.key in production), no connection to the database
// (its URL here points where nothing listens: a connection attempt would fail differently), and,
// on a real PostgreSQL database, no migration applied.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { runStart } from '../../src/cli/start.js';
import { composeParts } from '../../src/compose.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { freshDatabase, testDatabaseUrl } from '../support/test-databases.js';

const KEY_SETTINGS = ['approverKey', 'mintKey', 'feeKey', 'fundingKey', 'masterKey'];

async function startIn(env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  const saved = { ...process.env };
  const write = process.stderr.write.bind(process.stderr);
  let stderr = '';
  process.stderr.write = ((chunk: string) => {
    stderr += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  for (const name of Object.keys(process.env))
    if (/^(TOKENPROXY_|DATABASE_URL|ARC_)/.test(name)) delete process.env[name];
  Object.assign(process.env, env);
  try {
    return { code: await runStart([]), stderr };
  } finally {
    process.stderr.write = write;
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  }
}

describe('production start without key settings', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tokenproxy-prod-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = {
    TOKENPROXY_ENV: 'production',
    TOKENPROXY_DATA_DIR: dataDir,
    TOKENPROXY_ROLES: 'api,tracker,deliverer',
    DATABASE_URL: 'postgres://tokenproxy@127.0.0.1:1/nowhere',
    ARC_URL: 'http://127.0.0.1:1',
    TOKENPROXY_LOG_LEVEL: 'silent',
  };

  it('exits 2 naming every missing key, and writes nothing in the data folder', async () => {
    const { code, stderr } = await startIn(env);
    assert.equal(code, 2, stderr);
    for (const key of KEY_SETTINGS) assert.match(stderr, new RegExp(`\\b${key}\\b`), stderr);
    assert.deepEqual(readdirSync(dataDir), []);
  });

  it('names the operator keys that are missing when only some are given', () => {
    const problems = (() => {
      try {
        loadConfig({
          env: { ...env, TOKENPROXY_APPROVER_KEY: '11'.repeat(32), TOKENPROXY_MASTER_KEY: '22'.repeat(32) },
        });
      } catch (err) {
        assert.ok(err instanceof ConfigError);
        return err.problems.find((p) => p.startsWith('production needs the operator keys')) ?? '';
      }
      assert.fail('accepted');
    })();
    assert.match(problems, /mintKey/);
    assert.match(problems, /feeKey/);
    assert.match(problems, /fundingKey/);
    assert.doesNotMatch(problems, /approverKey|masterKey/);
  });

  it('composeParts refuses a production configuration without keys before opening anything', async () => {
    // A Config built without loadConfig's checks (as an embedding program could).
    const config = {
      ...loadConfig({ env: { TOKENPROXY_DATA_DIR: dataDir } }),
      env: 'production',
      ...{
        databaseUrl: env.DATABASE_URL,
        arcUrl: env.ARC_URL,
        roles: ['api'],
      },
    } as Parameters<typeof composeParts>[0];
    await assert.rejects(
      composeParts(config),
      (err: unknown) => err instanceof ConfigError && /approverKey/.test(err.message),
    );
    assert.deepEqual(readdirSync(dataDir), []);
  });

  it('applies no migration to a real PostgreSQL database', {
    skip: testDatabaseUrl === undefined,
  }, async () => {
    const db = await freshDatabase(testDatabaseUrl!, 'prodstart');
    try {
      const { code, stderr } = await startIn({ ...env, DATABASE_URL: db.url });
      assert.equal(code, 2, stderr);
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      const tables = await client.query(
        "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'",
      );
      await client.end();
      assert.equal(tables.rows[0].n, 0);
      assert.deepEqual(readdirSync(dataDir), []);
    } finally {
      await db.drop();
    }
  });
});
