import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AppInstance } from '../../src/http/app.js';
import { testApp } from './support.js';

function routes(app: AppInstance): void {
  app.post('/echo-size', { config: { scope: 'public' } }, async (request) => ({
    size: JSON.stringify(request.body).length,
  }));
  app.get('/ip', { config: { scope: 'public' } }, async (request) => ({ ip: request.ip }));
}

describe('buildApp defaults', () => {
  it('takes bodies up to 1 MiB and refuses larger ones', async () => {
    const t = testApp({ routes: [routes] });
    const near = JSON.stringify({ a: 'x'.repeat(1_048_576 - 16) });
    const ok = await t.app.inject({
      method: 'POST',
      url: '/echo-size',
      headers: { 'content-type': 'application/json' },
      payload: near,
    });
    assert.equal(ok.statusCode, 200);
    const tooBig = await t.app.inject({
      method: 'POST',
      url: '/echo-size',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ a: 'x'.repeat(1_048_576) }),
    });
    assert.equal(tooBig.statusCode, 413);
    await t.app.close();
  });

  it('ignores X-Forwarded-For unless trustProxy names the proxy', async () => {
    const headers = { 'x-forwarded-for': '203.0.113.9' };
    const plain = testApp({ routes: [routes] });
    const direct = await plain.app.inject({ url: '/ip', headers, remoteAddress: '127.0.0.1' });
    assert.equal(direct.json().ip, '127.0.0.1');
    await plain.app.close();

    const proxied = testApp({ routes: [routes], argv: ['--trust-proxy', '127.0.0.1'] });
    const viaProxy = await proxied.app.inject({ url: '/ip', headers, remoteAddress: '127.0.0.1' });
    assert.equal(viaProxy.json().ip, '203.0.113.9');
    await proxied.app.close();
  });

  it('never listens by itself', async () => {
    const t = testApp({ routes: [routes] });
    await t.app.ready();
    assert.equal(t.app.server.listening, false);
    await t.app.close();
  });
});
