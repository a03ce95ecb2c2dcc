import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { REFERENCE_CLIENT_TOKENS } from '../../src/http/well-known-tokens.js';
import { type TestApp, testApp } from './support.js';

const routes = [
  (app: TestApp['app']) => {
    app.post('/v2/balance', { config: { scope: 'read' } }, async () => ({ ok: true }));
    app.post('/v2/transfer', { config: { scope: 'submit' } }, async () => 'ticket');
    app.get('/v2/admin/status', { config: { scope: 'admin' } }, async () => ({ ok: true }));
    app.get('/v2/big', { config: { scope: 'read' } }, async () => ({ data: 'x'.repeat(5000) }));
  },
];

describe('CORS with configured origins', () => {
  let t: TestApp;
  before(() => {
    t = testApp({ argv: ['--cors-origins', 'https://a.example,https://b.example'], routes });
  });
  after(() => t.app.close());

  it('reflects an allowed origin, not another; never on admin routes', async () => {
    const allowed = await t.app.inject({
      method: 'POST',
      url: '/v2/balance',
      headers: { origin: 'https://b.example' },
    });
    assert.equal(allowed.headers['access-control-allow-origin'], 'https://b.example');
    assert.match(String(allowed.headers.vary), /origin/i);
    const other = await t.app.inject({
      method: 'POST',
      url: '/v2/balance',
      headers: { origin: 'https://evil.example' },
    });
    assert.equal(other.headers['access-control-allow-origin'], undefined);
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/v2/transfer',
      headers: { origin: 'https://a.example', 'access-control-request-method': 'POST' },
    });
    assert.equal(preflight.statusCode, 204);
    assert.equal(preflight.headers['access-control-allow-origin'], 'https://a.example');
    const admin = await t.app.inject({
      method: 'OPTIONS',
      url: '/v2/admin/status',
      headers: { origin: 'https://a.example', 'access-control-request-method': 'GET' },
    });
    assert.equal(admin.statusCode, 405);
    assert.equal(admin.headers['access-control-allow-origin'], undefined);
    const bare = await t.app.inject({ method: 'OPTIONS', url: '/v2/balance' });
    assert.equal(bare.statusCode, 405, 'an OPTIONS that is no preflight is still 405');
  });
});

describe('well-known public tokens and compression', () => {
  let t: TestApp;
  before(() => {
    t = testApp({ routes });
  });
  after(() => t.app.close());

  it("reads the reference client's public tokens as anonymous; in sandbox its sandbox token submits", async () => {
    for (const token of Object.values(REFERENCE_CLIENT_TOKENS)) {
      const read = await t.app.inject({ method: 'POST', url: `/v2/balance?auth_token=${token}` });
      assert.equal(read.statusCode, 200, read.body);
      const submit = await t.app.inject({ method: 'POST', url: `/v2/transfer?auth_token=${token}` });
      // The sandbox default stands for a shared submitter in sandbox (sandbox-public-token.test.ts).
      assert.equal(submit.statusCode, token === REFERENCE_CLIENT_TOKENS.sandbox ? 200 : 401);
    }
    const other = await t.app.inject({ method: 'POST', url: '/v2/balance?auth_token=0123456789abcdef' });
    assert.equal(other.statusCode, 401, 'an unknown key is still refused');
  });

  it('a configured list replaces the defaults', async () => {
    // sandboxPublicSubmit off: else the client's sandbox token is a shared submitter, not anonymous.
    const only = testApp({
      argv: ['--anonymous-tokens', 'public-demo-token', '--sandbox-public-submit', 'false'],
      routes,
    });
    try {
      const demo = await only.app.inject({ method: 'POST', url: '/v2/balance?auth_token=public-demo-token' });
      assert.equal(demo.statusCode, 200);
      const sdk = await only.app.inject({
        method: 'POST',
        url: `/v2/balance?auth_token=${REFERENCE_CLIENT_TOKENS.sandbox}`,
      });
      assert.equal(sdk.statusCode, 401);
    } finally {
      await only.app.close();
    }
  });

  it('compresses answers of 1 KiB or more when asked, not smaller ones', async () => {
    const big = await t.app.inject({ url: '/v2/big', headers: { 'accept-encoding': 'gzip' } });
    assert.equal(big.headers['content-encoding'], 'gzip');
    const small = await t.app.inject({
      method: 'POST',
      url: '/v2/balance',
      headers: { 'accept-encoding': 'gzip' },
    });
    assert.equal(small.headers['content-encoding'], undefined);
    const unasked = await t.app.inject({ url: '/v2/big' });
    assert.equal(unasked.headers['content-encoding'], undefined);
  });
});
