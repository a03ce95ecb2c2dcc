// The ARC HTTP client's retries leave nothing behind on its long-lived stop signal: every pause
// between attempts listens for close() only while it waits (a minute of ARC down used to pile
// one listener per retry onto it, and Node warned of a leak). Over its own transport (undici,
// real sockets): what it sends, retries with the same bytes, deadlines per attempt, close().
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { describe, it } from 'node:test';
import { ArcHttpClient } from '../../src/ledger/arc/arc-http-client.js';
import { LedgerUnavailableError } from '../../src/ledger/port.js';

const refused: typeof fetch = async () => {
  throw new TypeError('fetch failed', {
    cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
  });
};

describe('ArcHttpClient retries', () => {
  it('keeps no abort listener of its pauses once the request is over', async () => {
    const client = new ArcHttpClient({
      url: 'http://127.0.0.1:9',
      fetch: refused,
      retries: 5,
      retryDelayMs: 1,
    });
    const stop = (client as unknown as { stop: AbortController }).stop.signal;
    for (let i = 0; i < 4; i++)
      await assert.rejects(client.request('GET', '/v1/policy'), LedgerUnavailableError);
    assert.equal(getEventListeners(stop, 'abort').length, 0);
    client.close();
  });

  it('still cuts a pause short on close()', async () => {
    const client = new ArcHttpClient({
      url: 'http://127.0.0.1:9',
      fetch: refused,
      retries: 3,
      retryDelayMs: 60_000,
    });
    const pending = client.request('GET', '/v1/policy');
    await new Promise((r) => setTimeout(r, 50));
    client.close();
    await assert.rejects(pending, LedgerUnavailableError);
  });
});

/** A loopback server answering each request with `answer` (a never-settling one hangs it). */
async function arcStandIn(answer: (req: IncomingMessage, res: ServerResponse, n: number) => void): Promise<{
  url: string;
  requests: { method: string; headers: IncomingMessage['headers']; body: string }[];
  close(): Promise<void>;
}> {
  const requests: { method: string; headers: IncomingMessage['headers']; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      requests.push({ method: req.method ?? '', headers: req.headers, body });
      answer(req, res, requests.length);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe('ArcHttpClient over its own transport (undici, real sockets)', () => {
  it('sends the key, the headers and the body; retries a 503 after its Retry-After with the same bytes', async () => {
    const arc = await arcStandIn((_req, res, n) => {
      if (n === 1) {
        res.writeHead(503, { 'retry-after': '0' }).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"txStatus":"SEEN_ON_NETWORK"}');
    });
    const client = new ArcHttpClient({ url: `${arc.url}/`, apiKey: 'k-1', retries: 2, retryDelayMs: 1 });
    try {
      const reply = await client.request('POST', '/v1/tx', {
        body: 'beef',
        headers: { 'content-type': 'text/plain', 'x-callbackbatch': 'true' },
      });
      assert.deepEqual(reply, { status: 200, body: { txStatus: 'SEEN_ON_NETWORK' } });
      assert.equal(arc.requests.length, 2);
      for (const r of arc.requests) {
        assert.equal(r.method, 'POST');
        assert.equal(r.body, 'beef');
        assert.equal(r.headers.authorization, 'Bearer k-1');
        assert.equal(r.headers.accept, 'application/json');
        assert.equal(r.headers['content-type'], 'text/plain');
        assert.equal(r.headers['x-callbackbatch'], 'true');
      }
    } finally {
      client.close();
      await arc.close();
    }
  });

  it('cuts an attempt at its deadline, and every attempt of a request', async () => {
    const arc = await arcStandIn(() => undefined); // never answers
    const client = new ArcHttpClient({ url: arc.url, timeoutMs: 100, retries: 1, retryDelayMs: 1 });
    try {
      const started = performance.now();
      await assert.rejects(client.request('GET', '/v1/tx/ab'), /unavailable \(GET \/v1\/tx\/ab: AbortError/);
      const took = performance.now() - started;
      assert.ok(took >= 190 && took < 5000, `two attempts of 100 ms took ${took} ms`);
      assert.equal(arc.requests.length, 2);
    } finally {
      client.close();
      await arc.close();
    }
  });

  it('close() cuts the attempts under way; many at once leave no listener on the stop signal', async () => {
    let hang = false;
    const arc = await arcStandIn((_req, res) => {
      if (!hang) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    const client = new ArcHttpClient({ url: arc.url, timeoutMs: 60_000, retries: 3, retryDelayMs: 60_000 });
    const stop = (client as unknown as { stop: AbortController }).stop.signal;
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      await Promise.all(Array.from({ length: 24 }, (_, i) => client.request('GET', `/v1/tx/${i}`)));
      assert.equal(getEventListeners(stop, 'abort').length, 0);
      hang = true;
      const pending = Promise.all(Array.from({ length: 3 }, () => client.request('GET', '/v1/policy')));
      while (arc.requests.length < 27) await new Promise((r) => setTimeout(r, 10));
      const closedAt = performance.now();
      client.close();
      await assert.rejects(pending, LedgerUnavailableError);
      assert.ok(performance.now() - closedAt < 5000, 'close() did not wait for the deadline');
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(
        warnings.filter((w) => w.name === 'MaxListenersExceededWarning'),
        [],
      );
    } finally {
      process.off('warning', onWarning);
      client.close();
      await arc.close();
    }
  });
});
