// The first production start's key commands: `keys generate` (environment lines, or files of mode
// 0600 that the configuration reads through <NAME>_FILE), `keys addresses` (the funding address
// to pay the genesis coin to), `keys create-admin` (the first admin key, made in the database with
// no service running), and the start refused without a token names the funding address too.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import pino from 'pino';
import { createAdminKey, generateKeys, keyAddresses } from '../../src/cli/keys-setup.js';
import { composeParts } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import { addressesOf, keysFromConfig } from '../../src/keys/operator-keys.js';
import { storeApiKeyVerifier } from '../../src/store/access/api-keys-store.js';
import { openPgliteDb } from '../../src/store/db/pglite-db.js';
import { migrate } from '../../src/store/migrate.js';
import { freshDatabase, testDatabaseUrl } from '../support/test-databases.js';

const dir = mkdtempSync(join(tmpdir(), 'tokenproxy-keys-setup-'));
const captured = () => {
  let text = '';
  return {
    out: (t: string) => {
      text += t;
    },
    text: () => text,
  };
};
/** KEY=value lines (comments dropped) as an environment. */
const envOf = (text: string) =>
  Object.fromEntries(
    text
      .split('\n')
      .filter((l) => l !== '' && !l.startsWith('#'))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );

describe('tokenproxy keys generate | addresses | create-admin', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('generate prints the five keys as environment lines and the funding address', () => {
    const run = captured();
    generateKeys([], run.out);
    const env = envOf(run.text());
    for (const name of ['APPROVER', 'MINT', 'FEE', 'FUNDING', 'MASTER'])
      assert.match(env[`TOKENPROXY_${name}_KEY`] ?? '', /^[0-9a-f]{64}$/, name);
    const config = loadConfig({ argv: ['--roles', 'api'], env });
    const funding = addressesOf(keysFromConfig(config)).fundingAddress;
    assert.ok(run.text().includes(`# ${funding}`), 'the funding address is printed');
    const addresses = captured();
    keyAddresses([], env, addresses.out);
    assert.equal(JSON.parse(addresses.text()).fundingAddress, funding);
  });

  it('generate --out writes files of mode 0600 that the configuration reads through _FILE', () => {
    const run = captured();
    const out = join(dir, 'keys');
    generateKeys(['--out', out], run.out);
    const env = envOf(run.text());
    assert.deepEqual(Object.keys(env).sort(), [
      'TOKENPROXY_APPROVER_KEY_FILE',
      'TOKENPROXY_FEE_KEY_FILE',
      'TOKENPROXY_FUNDING_KEY_FILE',
      'TOKENPROXY_MASTER_KEY_FILE',
      'TOKENPROXY_MINT_KEY_FILE',
    ]);
    for (const file of Object.values(env)) assert.equal(statSync(file).mode & 0o777, 0o600, file);
    const config = loadConfig({ argv: ['--roles', 'api'], env });
    assert.equal(config.masterKey, readFileSync(env.TOKENPROXY_MASTER_KEY_FILE!, 'utf8').trim());
    assert.throws(() => generateKeys(['--out', out], () => undefined), /EEXIST/, 'never overwrites a key');
  });

  it('addresses without keys in the configuration says which settings to set', () => {
    assert.throws(() => keyAddresses([], {}, () => undefined), /TOKENPROXY_APPROVER_KEY/);
  });

  it('create-admin makes an admin key in the database, no service running', async () => {
    const dataDir = mkdtempSync(join(dir, 'admin-'));
    const master = '07'.repeat(32);
    const db = await openPgliteDb(dataDir);
    await migrate(db);
    await db.close();
    const run = captured();
    const file = join(dataDir, 'first-admin.key');
    await createAdminKey(['--data-dir', dataDir, '--out', file], { TOKENPROXY_MASTER_KEY: master }, run.out);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const key = readFileSync(file, 'utf8').trim();
    const again = await openPgliteDb(dataDir);
    try {
      const principal = await storeApiKeyVerifier(again).verify(key);
      assert.ok(principal?.scopes.includes('admin'), 'the key is a live admin key');
    } finally {
      await again.close();
    }
    // Another master key than the one the first key was sealed with is refused.
    await assert.rejects(
      createAdminKey(['--data-dir', dataDir], { TOKENPROXY_MASTER_KEY: '08'.repeat(32) }, () => undefined),
      /master key/,
    );
  });

  it('a production start on a database without a token names the funding address to pay', {
    skip: testDatabaseUrl === undefined,
  }, async () => {
    const database = await freshDatabase(testDatabaseUrl!, 'keys_setup_no_token');
    const keysRun = captured();
    generateKeys([], keysRun.out);
    const env = envOf(keysRun.text());
    try {
      const config = loadConfig({
        argv: ['--roles', 'api', '--data-dir', join(dir, 'prod')],
        env: {
          ...env,
          TOKENPROXY_ENV: 'production',
          DATABASE_URL: database.url,
          ARC_URL: 'http://127.0.0.1:9',
        },
      });
      const funding = addressesOf(keysFromConfig(config)).fundingAddress;
      await assert.rejects(composeParts(config, pino({ level: 'silent' })), (err: unknown) =>
        String(err).includes(funding),
      );
    } finally {
      await database.drop();
    }
  });
});
