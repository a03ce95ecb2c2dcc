import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isSaneRequestId } from '../../src/http/plugins/request-id.js';
import { type TestApp, testApp } from './support.js';

describe('request IDs', () => {
  let t: TestApp;
  let n = 0;
  before(async () => {
    t = testApp({
      deps: { generateRequestId: () => `gen-${++n}` },
      routes: [
        (app) => {
          app.get('/echo', { config: { scope: 'public' } }, async (request) => {
            request.log.info('inside the handler');
            return { id: request.id };
          });
        },
      ],
    });
    await t.app.ready();
  });
  after(() => t.app.close());

  it('honours a sane inbound x-request-id and returns it', async () => {
    const res = await t.app.inject({ url: '/echo', headers: { 'x-request-id': 'abc-123_XYZ:7' } });
    assert.equal(res.headers['x-request-id'], 'abc-123_XYZ:7');
    assert.equal(res.json().id, 'abc-123_XYZ:7');
  });

  it('replaces an insane one (too long, spaces, control characters) by a generated ID', async () => {
    for (const bad of ['x'.repeat(129), 'has space', 'tab\tx', '']) {
      const res = await t.app.inject({ url: '/echo', headers: { 'x-request-id': bad } });
      const id = String(res.headers['x-request-id']);
      assert.match(id, /^gen-\d+$/, JSON.stringify(bad));
      assert.equal(res.json().id, id);
    }
    const res = await t.app.inject({ url: '/echo', headers: { 'x-request-id': 'y'.repeat(128) } });
    assert.equal(res.headers['x-request-id'], 'y'.repeat(128));
  });

  it('generates one when none is sent, also on 404 and on malformed URLs', async () => {
    for (const url of ['/echo', '/missing', '/%zz']) {
      const res = await t.app.inject({ url });
      assert.match(String(res.headers['x-request-id']), /^gen-\d+$/, url);
    }
  });

  it('every log line of the request carries it as requestId', async () => {
    t.logs.length = 0;
    await t.app.inject({ url: '/echo', headers: { 'x-request-id': 'trace-me' } });
    const mine = t.records().filter((r) => r.requestId === 'trace-me');
    assert.ok(mine.some((r) => r.msg === 'inside the handler'));
    assert.ok(mine.some((r) => r.msg === 'request completed' && r.statusCode === 200));
  });

  it('isSaneRequestId accepts 1-128 visible ASCII characters only', () => {
    assert.equal(isSaneRequestId('a'), true);
    assert.equal(isSaneRequestId('é'), false);
    assert.equal(isSaneRequestId(['a']), false);
    assert.equal(isSaneRequestId(undefined), false);
  });
});
