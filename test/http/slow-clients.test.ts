// Attack: slow clients holding connections (issue 29: 30 sockets sent their headers with
// Content-Length 100000, then a byte every 15 s, and were all still open after 330 s). With
// real sockets on loopback, short timeouts set as settings: headers that trickle (slow-loris),
// bodies that trickle, and a socket that sends nothing are all answered 408 or closed.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { AppInstance } from '../../src/http/app.js';
import { testApp } from './support.js';

const HEADERS_MS = 1_000;
const REQUEST_MS = 2_000;
const IDLE_MS = 1_500;
const GIVE_UP_MS = 8_000;

interface Outcome {
  readonly answer: string;
  readonly closedAfterMs: number;
}

/** Opens a socket, writes `first`, then `drip` every `everyMs` until the server closes it. */
function slowClient(port: number, first: string, drip: string, everyMs: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const started = Date.now();
    let answer = '';
    const socket: Socket = connect(port, '127.0.0.1', () => {
      if (first !== '') socket.write(first);
    });
    const timer = setInterval(() => {
      if (drip !== '' && !socket.destroyed) socket.write(drip);
    }, everyMs);
    socket.on('data', (d) => {
      answer += d.toString('latin1');
    });
    socket.on('error', () => undefined);
    // Still open at the deadline: the server never cut it (the test fails on the time).
    const deadline = setTimeout(() => socket.destroy(), GIVE_UP_MS);
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(deadline);
      resolve({ answer, closedAfterMs: Date.now() - started });
    });
  });
}

describe('slow clients are cut (real sockets)', () => {
  let app: AppInstance;
  let port: number;

  before(async () => {
    app = testApp({
      argv: [
        '--headers-timeout-ms',
        String(HEADERS_MS),
        '--request-timeout-ms',
        String(REQUEST_MS),
        '--idle-timeout-ms',
        String(IDLE_MS),
      ],
      routes: [
        (a) => {
          a.post('/echo', { config: { scope: 'public' } }, async (request) => ({
            got: String(request.body).length,
          }));
        },
      ],
    }).app;
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as { port: number }).port;
  });
  after(async () => {
    await app?.close();
  });

  it('headers that trickle in (slow-loris) are answered 408 and the connection closed', async () => {
    const out = await slowClient(port, 'POST /echo HTTP/1.1\r\nHost: x\r\n', 'X-Slow: 1\r\n', 200);
    assert.match(out.answer, /^HTTP\/1\.1 408/);
    assert.ok(out.closedAfterMs < HEADERS_MS + 2_500, `closed after ${out.closedAfterMs} ms`);
  });

  it('bodies that trickle in are answered 408 and closed, thirty at once', async () => {
    const head =
      'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n';
    const outs = await Promise.all(Array.from({ length: 30 }, () => slowClient(port, head, 'a', 200)));
    for (const out of outs) {
      assert.match(out.answer, /^HTTP\/1\.1 408/);
      assert.ok(out.closedAfterMs < REQUEST_MS + 2_500, `closed after ${out.closedAfterMs} ms`);
    }
  });

  it('a connection that sends nothing is closed', async () => {
    const out = await slowClient(port, '', '', 1_000);
    assert.ok(
      out.closedAfterMs < Math.max(HEADERS_MS, IDLE_MS) + 2_500,
      `closed after ${out.closedAfterMs} ms`,
    );
  });

  it('a request that arrives in time is answered', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'hello',
    });
    assert.equal(res.status, 200);
  });
});
