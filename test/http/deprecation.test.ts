import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { markDeprecated } from '../../src/http/plugins/deprecation.js';
import { KEYS, type TestApp, testApp } from './support.js';

describe('deprecation headers', () => {
  let t: TestApp;
  before(async () => {
    t = testApp({
      routes: [
        (app) => {
          app.post('/v1/utxos', { config: { scope: 'read', deprecatedBy: '/v2/utxos' } }, async () => []);
          app.post(
            '/v1/transfer',
            { config: { scope: 'submit', deprecatedBy: '/v2/transfer' } },
            async () => ({}),
          );
          app.post('/v2/utxos', { config: { scope: 'read' } }, async () => []);
          app.get('/v1/manual', { config: { scope: 'public' } }, async (_request, reply) => {
            markDeprecated(reply, '/v2/manual');
            return 'x';
          });
        },
      ],
    });
    await t.app.ready();
  });
  after(() => t.app.close());

  it('a route with deprecatedBy answers Deprecation and a successor Link', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/utxos', payload: [] });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers.deprecation, 'true');
    assert.equal(res.headers.link, '</v2/utxos>; rel="successor-version"');
  });

  it('its error answers carry them too', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/transfer', payload: {} });
    assert.equal(res.statusCode, 401);
    assert.equal(res.headers.deprecation, 'true');
    assert.equal(res.headers.link, '</v2/transfer>; rel="successor-version"');
    const ok = await t.app.inject({
      method: 'POST',
      url: `/v1/transfer?auth_token=${KEYS.submit}`,
      payload: {},
    });
    assert.equal(ok.headers.link, '</v2/transfer>; rel="successor-version"');
  });

  it('other routes have neither header', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v2/utxos', payload: [] });
    assert.equal(res.headers.deprecation, undefined);
    assert.equal(res.headers.link, undefined);
  });

  it('markDeprecated sets them from a handler', async () => {
    const res = await t.app.inject({ url: '/v1/manual' });
    assert.equal(res.headers.deprecation, 'true');
    assert.equal(res.headers.link, '</v2/manual>; rel="successor-version"');
  });

  it('refuses a successor that is not a path', async () => {
    const bad = testApp({
      routes: [
        (app) => {
          app.get('/v1/x', { config: { scope: 'public', deprecatedBy: 'v2/x' } }, async () => 'x');
        },
      ],
    });
    await assert.rejects(async () => {
      await bad.app.ready();
    }, /deprecatedBy must be a path/);
  });
});
