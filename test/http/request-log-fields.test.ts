// A request's log record says who asked: the client's address (the forwarded one behind a
// trusted proxy) and the API key's id, never the key; null for an anonymous request.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KEYS, type TestApp, testApp } from './support.js';

describe("a request's log record", () => {
  let t: TestApp;
  before(async () => {
    t = testApp({
      argv: ['--trust-proxy', '127.0.0.1'],
      routes: [
        (app) => {
          app.get('/who', { config: { scope: 'read' } }, async () => ({ ok: true }));
        },
      ],
    });
    await t.app.ready();
  });
  after(() => t.app.close());

  const completed = (id: string) =>
    t.records().find((r) => r.requestId === id && r.msg === 'request completed') as Record<string, unknown>;

  it('carries the client address and the API key id', async () => {
    t.logs.length = 0;
    const res = await t.app.inject({
      url: '/who',
      remoteAddress: '127.0.0.1',
      headers: {
        authorization: `Bearer ${KEYS.read}`,
        'x-request-id': 'who-1',
        'x-forwarded-for': '203.0.113.9',
      },
    });
    assert.equal(res.statusCode, 200);
    const record = completed('who-1');
    assert.equal(record.clientAddress, '203.0.113.9');
    assert.equal(record.apiKeyId, 'k-read');
    assert.ok(!t.logs.join('\n').includes(KEYS.read), 'never the key itself');
  });

  it('anonymous: the address, and no key id', async () => {
    t.logs.length = 0;
    await t.app.inject({ url: '/who', remoteAddress: '198.51.100.7', headers: { 'x-request-id': 'who-2' } });
    const record = completed('who-2');
    assert.equal(record.clientAddress, '198.51.100.7');
    assert.equal(record.apiKeyId, null);
  });
});
