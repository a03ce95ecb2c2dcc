// Secrets from files: every setting's variable may be given as <NAME>_FILE (compose secrets,
// systemd credentials), so that no secret need be in the environment; the CLI's connection
// variables are no setting of the service and do not stop its start.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError, describeConfig, loadConfig } from '../src/config.js';

const dir = mkdtempSync(join(tmpdir(), 'tokenproxy-secret-files-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text, { mode: 0o600 });
  return path;
};

describe('settings from <NAME>_FILE', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads DATABASE_URL_FILE and TOKENPROXY_MASTER_KEY_FILE, trailing newline dropped', () => {
    const c = loadConfig({
      env: {
        DATABASE_URL_FILE: file('db', 'postgres://tp:from-file@db:5432/tokenproxy\n'),
        TOKENPROXY_MASTER_KEY_FILE: file('master', `${'05'.repeat(32)}\n`),
        ARC_API_KEY_FILE: file('arc', 'arc-secret'),
      },
    });
    assert.equal(c.databaseUrl, 'postgres://tp:from-file@db:5432/tokenproxy');
    assert.equal(c.masterKey, '05'.repeat(32));
    assert.equal(c.arcApiKey, 'arc-secret');
    assert.doesNotMatch(describeConfig(c), /from-file/, 'the password stays hidden');
    // A bad value read from a file is reported with the file and the variable it came from.
    assert.throws(
      () => loadConfig({ env: { TOKENPROXY_PORT_FILE: file('port', 'abc') } }),
      (err: unknown) =>
        err instanceof ConfigError && err.problems.some((p) => p.includes('TOKENPROXY_PORT_FILE')),
    );
  });

  it('refuses both NAME and NAME_FILE, and names an unreadable file', () => {
    assert.throws(
      () =>
        loadConfig({
          env: { DATABASE_URL: 'postgres://a@b/c', DATABASE_URL_FILE: file('db2', 'postgres://x@y/z') },
        }),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.problems.some((p) => /both DATABASE_URL and DATABASE_URL_FILE/.test(p)),
    );
    assert.throws(
      () => loadConfig({ env: { TOKENPROXY_FEE_KEY_FILE: join(dir, 'absent') } }),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.problems.some((p) => p.includes('TOKENPROXY_FEE_KEY_FILE') && p.includes('ENOENT')),
    );
  });

  it("leaves the CLI's connection variables to the CLI", () => {
    const c = loadConfig({
      env: {
        TOKENPROXY_URL: 'http://127.0.0.1:3999',
        TOKENPROXY_ADMIN_KEY: 'tp_x',
        TOKENPROXY_ADMIN_KEY_FILE: join(dir, 'absent'),
      },
    });
    assert.equal(c.port, 3000);
  });
});
