import assert from 'node:assert/strict';
import { connect } from 'node:net';
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

describe('closing', () => {
  it('answers requests that arrive while closing with a NOT_READY problem and Retry-After', async () => {
    const { app } = testApp({
      routes: [
        (a) => {
          a.get('/slow', { config: { scope: 'public' } }, async () => {
            await new Promise((resolve) => setTimeout(resolve, 300));
            return { ok: true };
          });
        },
      ],
    });
    const address = await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = new URL(address);
    // Two requests on one keep-alive connection: the second arrives while the app is closing.
    const socket = connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    const ended = new Promise((resolve) => socket.on('close', resolve));
    const request = 'GET /slow HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n';
    socket.write(request);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closing = app.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.write(request);
    await closing;
    await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 2000))]);
    socket.destroy();
    const text = Buffer.concat(chunks).toString('utf8');
    assert.match(text, /^HTTP\/1\.1 200/, 'the request in flight completes');
    const second = text.slice(text.indexOf('HTTP/1.1', 1));
    const res = {
      statusCode: Number(second.slice(9, 12)),
      headers: {
        'content-type': /content-type: ([^\r]+)/i.exec(second)?.[1],
        'retry-after': /retry-after: ([^\r]+)/i.exec(second)?.[1],
      },
      json: () => JSON.parse(second.slice(second.indexOf('\r\n\r\n') + 4)) as { code: string },
    };
    assert.equal(res.statusCode, 503);
    assert.equal(res.headers['content-type'], 'application/problem+json');
    assert.equal(res.headers['retry-after'], '5');
    assert.equal(res.json().code, 'NOT_READY');
  });
});
