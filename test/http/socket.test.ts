// Over a real socket (127.0.0.1, port 0): the problem content type and the 405 Allow
// header as an HTTP client sees them, not only as inject() reports them.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { AppError } from '../../src/http/app-error.js';
import { KEYS, type TestApp, testApp } from './support.js';

describe('the frame over a real socket', () => {
  let t: TestApp;
  let base: string;
  before(async () => {
    t = testApp({
      routes: [
        (app) => {
          app.post('/v2/balance', { config: { scope: 'read' } }, async () => []);
          app.get('/v2/ticket', { config: { scope: 'read' } }, async () => {
            throw new AppError('NOT_FOUND', 'record not found');
          });
        },
      ],
    });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const address = t.app.server.address() as AddressInfo;
    base = `http://127.0.0.1:${address.port}`;
  });
  after(() => t.app.close());

  it('a wrong method answers 405 with Allow and a problem body', async () => {
    const res = await fetch(`${base}/v2/balance`, { method: 'GET' });
    assert.equal(res.status, 405);
    assert.equal(res.headers.get('allow'), 'POST');
    assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json(;|$)/);
    const body = (await res.json()) as { code: string; status: number };
    assert.equal(body.code, 'METHOD_NOT_ALLOWED');
    assert.equal(body.status, 405);
  });

  it('an invalid JSON body answers the problem content type and the exact detail', async () => {
    const res = await fetch(`${base}/v2/balance`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{not json',
    });
    assert.equal(res.status, 400);
    assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json(;|$)/);
    const body = (await res.json()) as { detail: string; message: string };
    assert.equal(body.detail, 'Invalid JSON payload');
    assert.equal(body.message, 'Invalid JSON payload');
  });

  it('the reference client polls a ticket through 404 {"message":"record not found"}', async () => {
    // the client sends Content-Type: application/json on this GET, with no body
    const res = await fetch(`${base}/v2/ticket?ticketID=0190&auth_token=${KEYS.read}`, {
      headers: { 'Content-Type': 'application/json' },
    });
    assert.equal(res.status, 404);
    assert.equal(((await res.json()) as { message: string }).message, 'record not found');
    assert.ok(res.headers.get('x-request-id'));
  });
});
