// The CLI's connection: --url, else TOKENPROXY_URL, else loopback on the configured port; the
// admin key from --admin-key, TOKENPROXY_ADMIN_KEY, TOKENPROXY_ADMIN_KEY_FILE or the data folder;
// "cannot reach the service" names where the URL came from; a write that moves value carries one
// Idempotency-Key and is sent again with it when the connection fails.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { CliError, connectionOf } from '../../src/cli/args.js';
import { callService } from '../../src/cli/client.js';

const dir = mkdtempSync(join(tmpdir(), 'tokenproxy-cli-connection-'));

describe('CLI connection', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('takes --url, else TOKENPROXY_URL, else the configured port', () => {
    const env = { TOKENPROXY_ADMIN_KEY: 'tp_env' };
    assert.equal(
      connectionOf({ url: 'http://h:1/' }, { ...env, TOKENPROXY_URL: 'http://x:2' }).url,
      'http://h:1',
    );
    assert.equal(connectionOf({}, { ...env, TOKENPROXY_URL: 'http://x:2/' }).url, 'http://x:2');
    assert.equal(connectionOf({}, { ...env, PORT: '8080' }).url, 'http://127.0.0.1:8080');
    assert.equal(
      connectionOf({}, { ...env, TOKENPROXY_PORT: '8081', PORT: '8080' }).url,
      'http://127.0.0.1:8081',
    );
    assert.equal(connectionOf({}, env).url, 'http://127.0.0.1:3000');
    assert.throws(
      () => connectionOf({}, { ...env, TOKENPROXY_URL: 'ftp://x' }),
      /TOKENPROXY_URL must be http/,
    );
  });

  it('takes the admin key from the flag, the environment, a file, then the data folder', () => {
    const keyFile = join(dir, 'admin-key');
    writeFileSync(keyFile, 'tp_from_file\n', { mode: 0o600 });
    writeFileSync(join(dir, 'admin.key'), 'tp_from_data_dir\n', { mode: 0o600 });
    const all = {
      TOKENPROXY_ADMIN_KEY: 'tp_env',
      TOKENPROXY_ADMIN_KEY_FILE: keyFile,
      TOKENPROXY_DATA_DIR: dir,
    };
    assert.equal(connectionOf({ 'admin-key': 'tp_flag' }, all).adminKey, 'tp_flag');
    assert.equal(connectionOf({}, all).adminKey, 'tp_env');
    assert.equal(connectionOf({}, { ...all, TOKENPROXY_ADMIN_KEY: '' }).adminKey, 'tp_from_file');
    assert.equal(connectionOf({}, { TOKENPROXY_DATA_DIR: dir }).adminKey, 'tp_from_data_dir');
    assert.throws(
      () => connectionOf({}, { TOKENPROXY_ADMIN_KEY_FILE: join(dir, 'absent') }),
      (err: unknown) => err instanceof CliError && /TOKENPROXY_ADMIN_KEY_FILE/.test(err.message),
    );
  });

  it('names --url and TOKENPROXY_URL when the service cannot be reached', async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((r) => server.close(() => r()));
    await assert.rejects(
      callService({ url: `http://127.0.0.1:${port}`, adminKey: 'k' }, 'GET', '/v2/admin/status'),
      (err: unknown) =>
        err instanceof CliError && /--url/.test(err.message) && /TOKENPROXY_URL/.test(err.message),
    );
  });

  it('sends a write that moves value again with the same Idempotency-Key when the connection fails', async () => {
    const keys: (string | undefined)[] = [];
    const server = createServer((req, res) => {
      keys.push(req.headers['idempotency-key'] as string | undefined);
      // The first two attempts die with their process: the connection is cut, no answer.
      if (keys.length <= 2) {
        req.socket.destroy();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ticketId":"t","txid":"x"}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    try {
      const answer = await callService(
        { url: `http://127.0.0.1:${port}`, adminKey: 'k' },
        'POST',
        '/v2/admin/mint',
        { to: 'a', amount: '1' },
        { idempotent: true, retryPauseMs: 10 },
      );
      assert.deepEqual(answer, { ticketId: 't', txid: 'x' });
      assert.equal(keys.length, 3);
      assert.ok(keys[0]?.startsWith('cli-'));
      assert.ok(
        keys.every((k) => k === keys[0]),
        'one key for every attempt',
      );
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('sends a read once, with no Idempotency-Key', async () => {
    let calls = 0;
    const server = createServer((req, _res) => {
      calls += 1;
      assert.equal(req.headers['idempotency-key'], undefined);
      req.socket.destroy();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    try {
      await assert.rejects(
        callService({ url: `http://127.0.0.1:${port}`, adminKey: 'k' }, 'GET', '/v2/admin/status'),
      );
      assert.equal(calls, 1);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
