import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AppInstance } from '../../src/http/app.js';
import { allowedMethods } from '../../src/http/plugins/method-not-allowed.js';
import { type TestApp, testApp } from './support.js';

function routes(app: AppInstance): void {
  app.post('/v2/balance', { config: { scope: 'read' } }, async () => []);
  app.get('/v1/sync', { config: { scope: 'read' } }, async () => []);
  app.post('/v1/sync', { config: { scope: 'read' } }, async () => []);
  app.get('/v2/history/:address', { config: { scope: 'read' } }, async () => []);
  app.delete('/v2/keys/:id', { config: { scope: 'admin' } }, async () => ({}));
}

describe('405 Method Not Allowed', () => {
  let t: TestApp;
  before(async () => {
    t = testApp({ routes: [routes] });
    await t.app.ready();
  });
  after(() => t.app.close());

  it('GET on a POST-only path answers 405 with Allow: POST', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v2/balance' });
    assert.equal(res.statusCode, 405);
    assert.equal(res.headers.allow, 'POST');
    assert.equal(res.json().code, 'METHOD_NOT_ALLOWED');
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  });

  it('lists every method of the path, HEAD with GET as Fastify serves it', async () => {
    const res = await t.app.inject({ method: 'DELETE', url: '/v1/sync?from=3' });
    assert.equal(res.statusCode, 405);
    assert.equal(res.headers.allow, 'GET, HEAD, POST');
  });

  it('matches parametric paths', async () => {
    const res = await t.app.inject({ method: 'PUT', url: '/v2/history/1BoatSLRHtKNngkdXEeobR76b53LETtpyT' });
    assert.equal(res.statusCode, 405);
    assert.equal(res.headers.allow, 'GET, HEAD');
  });

  it('an unknown path is still 404, whatever the method', async () => {
    for (const method of ['GET', 'POST', 'DELETE'] as const) {
      const res = await t.app.inject({ method, url: '/v2/nothing' });
      assert.equal(res.statusCode, 404);
      assert.equal(res.headers.allow, undefined);
    }
  });

  it('answers 405 before authentication: the path exists, the method does not', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v2/keys/abc' });
    assert.equal(res.statusCode, 405);
    assert.equal(res.headers.allow, 'DELETE');
  });

  it('HEAD on a GET route is served, not 405', async () => {
    const res = await t.app.inject({ method: 'HEAD', url: '/v1/sync' });
    assert.equal(res.statusCode, 200);
  });

  it('allowedMethods reads the router', () => {
    assert.deepEqual(allowedMethods(t.app as never, '/v2/balance?x=1'), ['POST']);
    assert.deepEqual(allowedMethods(t.app as never, '/v2/nothing'), []);
  });
});
