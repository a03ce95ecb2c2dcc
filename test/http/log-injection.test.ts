// Attack: writing into the operator's log (issue 29). On a terminal pino-pretty printed a
// ticketID's newline as is, so `?ticketID=%0A[08:10:00.000] INFO: admin key rotated by operator`
// printed a forged record; and a key pasted as a ticketID or address, or sent as
// `auth_token[]=`, was logged in clear. The real logger and HTTP frame run in a child process
// (test/support/pty-log-probe.ts) on a pseudo-terminal (util-linux `script`) and on a pipe.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { redactUrl } from '../../src/http/plugins/request-log.js';
import { escapeControls, redactKeyShaped, safeForLog } from '../../src/process/log-safety.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PROBE = 'node --import tsx test/support/pty-log-probe.ts';
const FORGED = '[08:10:00.000] INFO: admin key rotated by operator';
const KEY = 'tp_Zm9yZ2VkLWtleS1wYXN0ZWQtYXMtYW4taWQtMTIzNDU2';
// biome-ignore lint/suspicious/noControlCharactersInRegex: terminal colours are stripped
const ANSI = /\u001b\[[0-9;]*m/g;

const hasScript = spawnSync('script', ['--version']).status === 0;

describe('log injection and keys in logs', () => {
  it('on a terminal (pseudo-terminal), a ticketID newline prints no forged record', {
    skip: !hasScript,
  }, () => {
    const run = spawnSync('script', ['-qc', PROBE, '/dev/null'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(run.status, 0, run.stderr);
    const lines = run.stdout.replace(ANSI, '').split(/\r?\n/);
    assert.ok(
      lines.some((l) => l.includes('INVALID_PARAMETER')),
      'the pretty records are there',
    );
    const forged = lines.filter((l) => l.trimStart().startsWith(FORGED));
    assert.deepEqual(forged, [], 'no line starts with the forged record');
    assert.ok(run.stdout.includes(`\\n${FORGED}`), 'the newline is printed escaped');
    assert.ok(!run.stdout.includes(KEY), 'the pasted key is never printed');
  });

  it('as JSON, the key pasted as an ID, an address or auth_token[] is never written', () => {
    const run = spawnSync('sh', ['-c', `${PROBE} | cat`], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    assert.equal(run.status, 0, run.stderr);
    const records = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.ok(records.length >= 10);
    assert.ok(!run.stdout.includes(KEY), 'the key is not in the log');
    const refusals = records.filter((r) => r.status === 400);
    assert.ok(
      refusals.length >= 2 && refusals.every((r) => r.code === 'INVALID_PARAMETER'),
      'a 4xx logs its code',
    );
  });

  it('redacts a credential parameter in any spelling, and key-shaped strings anywhere in a URL', () => {
    for (const name of [
      'auth_token',
      'Auth_Token',
      'AUTH_TOKEN',
      'auth_token[]',
      'auth_token[0]',
      'auth%5Ftoken',
      'auth%255Ftoken',
      'api_key',
      'apiKey',
      'access_token',
    ])
      assert.equal(
        redactUrl(`/v1/config?${name}=secret-value&a=1`),
        `/v1/config?${name}=[REDACTED]&a=1`,
        name,
      );
    assert.equal(redactUrl(`/v2/history/${KEY}?x=1`), '/v2/history/[REDACTED key-shaped, 47 chars]?x=1');
    const txid = 'ab'.repeat(32);
    assert.equal(redactUrl(`/v2/tx/${txid}`), `/v2/tx/${txid}`, 'a txid is kept');
    assert.equal(
      redactUrl('/v2/admin/console/search-transactions-by-address'),
      '/v2/admin/console/search-transactions-by-address',
    );
  });

  it('escapes control characters, redacts key shapes and bounds a caller’s text', () => {
    assert.equal(escapeControls('a\nb\r\t\u001b[31mc\u2028'), 'a\\nb\\r\\t\\u001b[31mc\\u2028');
    const wif = 'KwDiBf89QgGbjEhKnhXJuH7LrciVrZi3qYjgd9M7rFU73sVHnoWn';
    assert.equal(redactKeyShaped(`key ${wif}`), 'key [REDACTED key-shaped, 52 chars]');
    assert.equal(
      redactKeyShaped('1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2'),
      '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2',
      'an address is kept',
    );
    const long = safeForLog('x'.repeat(1_000));
    assert.ok(long.length < 300 && long.endsWith('(1000 chars)'));
  });
});
