// The HTTP side of a delivery over real sockets: the address guard at connect time (a name
// re-bound to loopback, literals for which no lookup happens), each with a control that
// reaches the receiver when the target is allowed, the capped read of an answer, and how an
// attempt ends early: its deadline (also while it waits for a connection) and the caller's
// signal.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { checkCallbackUrl, parseCallbackAllow, type Resolver } from '../../src/callbacks/address-guard.js';
import { createWebhookSender, type SendResult } from '../../src/callbacks/webhook-sender.js';
import { LOOPBACK } from './outbox-fixtures.js';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js';

const NONE = parseCallbackAllow([]);
const message = { headers: { 'content-type': 'application/json' }, body: '{}' };

async function sendOnce(
  url: string,
  allow = NONE,
  resolve?: Resolver,
  timeoutMs = 5_000,
): Promise<SendResult> {
  const sender = createWebhookSender({ allow, ...(resolve && { resolve }), timeoutMs });
  try {
    return await sender.send({ url, ...message });
  } finally {
    await sender.close();
  }
}

describe('webhook sender', () => {
  let receiver: WebhookReceiver;
  before(async () => {
    receiver = await startWebhookReceiver(() => ({ status: 200 }));
  });
  after(() => receiver.close());

  it('a name that resolves public at submission, then loopback, is refused at connect', async () => {
    let calls = 0;
    const rebinding: Resolver = async () => [
      { address: calls++ === 0 ? '93.184.215.14' : '127.0.0.1', family: 4 },
    ];
    const url = `http://rebind.example.com:${receiver.port}/hook`;
    assert.ok((await checkCallbackUrl(url, NONE, rebinding)).ok, 'public at submission');
    const before = receiver.received.length;
    const result = await sendOnce(url, NONE, rebinding);
    assert.equal(result.kind, 'refused');
    assert.match(
      result.kind === 'refused' ? result.reason : '',
      /refused at connect: .*127\.0\.0\.1 is a loopback/,
    );
    assert.equal(receiver.received.length, before, 'nothing reached the receiver');
    assert.ok(calls >= 2, 'resolved again at connect');
  });

  it('control: the same name reaches the receiver when loopback is allowed', async () => {
    const toLoopback: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    const before = receiver.received.length;
    const result = await sendOnce(`http://rebind.example.com:${receiver.port}/hook`, LOOPBACK, toLoopback);
    assert.equal(result.kind === 'answered' && result.status, 200);
    assert.equal(receiver.received.length, before + 1);
  });

  it('literals are refused before connecting (no lookup runs for them), in every spelling', async () => {
    const before = receiver.received.length;
    for (const host of ['127.0.0.1', '2130706433', '0x7f.1', '127.1', '[::ffff:127.0.0.1]', '[::1]']) {
      const result = await sendOnce(`http://${host}:${receiver.port}/hook`);
      assert.equal(result.kind, 'refused', host);
    }
    assert.equal(receiver.received.length, before);
    const allowed = await sendOnce(`http://2130706433:${receiver.port}/hook`, LOOPBACK);
    assert.equal(allowed.kind === 'answered' && allowed.status, 200, 'control: allowed, it arrives');
    assert.equal(receiver.received.length, before + 1);
  });

  it('refuses other schemes outright', async () => {
    assert.equal((await sendOnce('file:///etc/passwd')).kind, 'refused');
  });

  describe('an answer whose body never ends', () => {
    let server: Server;
    let port: number;
    before(async () => {
      server = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const chunk = 'x'.repeat(1024);
        const timer = setInterval(() => res.write(chunk), 1);
        res.on('close', () => clearInterval(timer));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
      port = (server.address() as AddressInfo).port;
    });
    after(async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it('is read up to the cap and dropped: the status counts, the body does not', {
      timeout: 30_000,
    }, async () => {
      const result = await sendOnce(`http://127.0.0.1:${port}/`, LOOPBACK, undefined, 60_000);
      assert.equal(result.kind, 'answered');
      if (result.kind === 'answered') {
        assert.equal(result.status, 200);
        assert.ok(result.excerpt.length <= 200);
      }
    });
  });

  describe('an attempt cut short', () => {
    let server: Server;
    let port: number;
    let arrived: string[] = [];
    before(async () => {
      // Takes every request and never answers.
      server = createServer((req) => {
        arrived.push(req.url ?? '');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
      port = (server.address() as AddressInfo).port;
    });
    after(async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });
    const until = async (done: () => boolean) => {
      while (!done()) await new Promise((resolve) => setTimeout(resolve, 5));
    };

    it('by its deadline while the body still comes: the status counts', async () => {
      const slow = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('accepted, more to come');
      });
      await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', () => resolve()));
      const sender = createWebhookSender({ allow: LOOPBACK, timeoutMs: 400 });
      try {
        const result = await sender.send({
          url: `http://127.0.0.1:${(slow.address() as AddressInfo).port}/`,
          ...message,
        });
        assert.equal(result.kind, 'answered');
        assert.equal(result.kind === 'answered' && result.status, 200);
        assert.equal(result.kind === 'answered' && result.excerpt, 'accepted, more to come');
      } finally {
        await sender.close();
        slow.closeAllConnections();
        await new Promise<void>((resolve) => slow.close(() => resolve()));
      }
    });

    it('by its deadline, also one waiting for the only connection', async () => {
      arrived = [];
      const sender = createWebhookSender({ allow: LOOPBACK, timeoutMs: 400, connectionsPerOrigin: 1 });
      try {
        const url = `http://127.0.0.1:${port}/hook`;
        const results = await Promise.all([
          sender.send({ url, ...message }),
          sender.send({ url, ...message }),
        ]);
        for (const result of results) {
          assert.equal(result.kind, 'no-answer');
          assert.equal(result.kind === 'no-answer' && result.error, 'no answer within 400 ms');
        }
      } finally {
        await sender.close();
      }
    });

    it("by the caller's signal: aborted, not an outcome; one stopped while queued never goes out", async () => {
      arrived = [];
      const sender = createWebhookSender({ allow: LOOPBACK, timeoutMs: 400, connectionsPerOrigin: 1 });
      const base = `http://127.0.0.1:${port}`;
      try {
        const first = sender.send({ url: `${base}/one`, ...message });
        await until(() => arrived.length === 1);
        const stop = new AbortController();
        const queued = sender.send({ url: `${base}/two`, ...message, signal: stop.signal });
        stop.abort();
        assert.deepEqual(await queued, { kind: 'aborted' });
        assert.equal((await first).kind, 'no-answer');
        // The connection is free again: the next attempt goes out, not the stopped one.
        const third = sender.send({ url: `${base}/three`, ...message });
        await until(() => arrived.length === 2);
        assert.deepEqual(arrived, ['/one', '/three']);
        assert.equal((await third).kind, 'no-answer');
        const late = await sender.send({ url: `${base}/four`, ...message, signal: stop.signal });
        assert.deepEqual(late, { kind: 'aborted' }, 'a stopped signal sends nothing more');
        assert.deepEqual(arrived, ['/one', '/three']);
      } finally {
        await sender.close();
      }
    });
  });
});
