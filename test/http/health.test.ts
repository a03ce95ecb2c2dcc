import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Readiness } from '../../src/http/health.js';
import { testApp } from './support.js';

async function readyz(readiness: () => Promise<Readiness>, timeoutMs?: number) {
  const t = testApp({ readiness, deps: timeoutMs === undefined ? {} : { readinessTimeoutMs: timeoutMs } });
  const res = await t.app.inject({ url: '/readyz' });
  await t.app.close();
  return res;
}

describe('health', () => {
  it('/healthz always answers 200 {status:"ok"}, even when not ready, and needs no key', async () => {
    const t = testApp({ argv: ['--no-anonymous-read'], readiness: async () => ({ ready: false }) });
    const res = await t.app.inject({ url: '/healthz?auth_token=revoked-or-not' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { status: 'ok' });
    await t.app.close();
  });

  it('/readyz answers 200 when ready', async () => {
    const res = await readyz(async () => ({ ready: true }));
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { status: 'ready' });
  });

  it('/readyz answers 503 NOT_READY with the reason', async () => {
    const res = await readyz(async () => ({ ready: false, reason: 'migrations pending' }));
    assert.equal(res.statusCode, 503);
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
    assert.equal(res.json().code, 'NOT_READY');
    assert.equal(res.json().detail, 'migrations pending');
  });

  it('/readyz answers 503 when the check throws, without leaking its message', async () => {
    const res = await readyz(async () => {
      throw new Error('connect ECONNREFUSED 10.1.2.3:5432 password=x');
    });
    assert.equal(res.statusCode, 503);
    assert.doesNotMatch(res.body, /ECONNREFUSED|password/);
  });

  it('/readyz answers 503 when the check never settles', async () => {
    const res = await readyz(() => new Promise<Readiness>(() => {}), 20);
    assert.equal(res.statusCode, 503);
    assert.equal(res.json().detail, 'readiness check timed out');
  });
});
