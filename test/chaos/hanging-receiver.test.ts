// Chaos: a callback receiver that hangs (a real server on loopback that accepts the connection,
// reads the request and never answers), beside a healthy receiver. A baseline run without it
// measures how long the healthy receiver's callbacks of a few transfers take; the run with it
// gives the deliverer an attempt deadline of three times that, and the healthy receiver must get
// every one of its callbacks, in order and as many as in the baseline, before the first attempt
// at the hanging one reaches that deadline (no assertion on absolute times). Then the hanging
// attempts time out: each is recorded with its error and a retry scheduled, and the hanging
// server sees every connection closed (no socket leak). Last, the service itself (deliverer
// role) is stopped while its retry to the hanging receiver is in flight: stop() resolves, the
// connection is closed, and the event goes back unattempted.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { parseCallbackAllow } from '../../src/callbacks/address-guard.js';
import { createDeliverer, type Deliverer } from '../../src/callbacks/deliverer.js';
import type { RunningService } from '../../src/service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../callbacks/webhook-receiver.js';
import { eventually, startTestService, type TestService } from '../e2e/support.js';
import { startServiceOn } from '../support/service-in-temp.js';
import { type ChaosStream, mineUntilAllEnded, prepareChaosStream, submitTransfer } from './chaos-stream.js';
import { expectInvariants } from './invariants.js';

const PER_RUN = 4;
const silentLog = { info() {}, warn() {}, error() {} };
const SERVICE_FLAGS = [
  '--tracker-poll-ms',
  '200',
  '--no-rate-limit-enabled',
  '--log-level',
  'fatal',
  '--callback-allow',
  '127.0.0.1',
];

interface HangingServer {
  readonly url: string;
  /** Connections accepted, and how many of them were closed since. */
  readonly opened: number;
  readonly closed: number;
  /** Requests' first bytes seen (each connection carries one request at a time). */
  readonly requests: number;
  close(): Promise<void>;
}

/** Accepts, reads, never answers; counts connections opened and closed. */
async function startHangingServer(): Promise<HangingServer> {
  const sockets = new Set<Socket>();
  const counts = { opened: 0, closed: 0, requests: 0 };
  const server: Server = createServer((socket) => {
    counts.opened++;
    sockets.add(socket);
    socket.on('data', (chunk: Buffer) => {
      if (chunk.toString('latin1').startsWith('POST ')) counts.requests++;
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      counts.closed++;
      sockets.delete(socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hang`,
    get opened() {
      return counts.opened;
    },
    get closed() {
      return counts.closed;
    },
    get requests() {
      return counts.requests;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('chaos: a callback receiver that hangs, beside a healthy one', () => {
  let t: TestService | undefined;
  let service: RunningService | undefined;
  let stream: ChaosStream;
  let healthy: WebhookReceiver | undefined;
  let hanging: HangingServer | undefined;
  let deliverer: Deliverer | undefined;
  let baselineMs = 0;
  let timeoutMs = 0;
  const accepted: string[] = [];
  const hangingTickets: string[] = [];
  let next = 0;

  const deliverWith = (timeout: number, clock?: () => Date) => {
    const d = createDeliverer({
      db: t!.service.parts.db,
      masterKey: t!.service.parts.masterKey,
      allow: parseCallbackAllow(['127.0.0.1']),
      log: silentLog,
      timeoutMs: timeout,
      ...(clock !== undefined && { clock }),
    });
    d.start();
    return d;
  };
  const statusesAt = (path: string) =>
    healthy!.received.filter((r) => r.path === path).map((r) => (r.json as { status: string }).status);
  const send = async (url: string) => {
    const answer = await submitTransfer(t!.url, stream.key, stream.rawtxs[next++]!, { callback_url: url });
    assert.equal(answer.status, 200, answer.text);
    accepted.push(answer.text);
    return answer.text;
  };
  const attemptsOf = (ids: readonly string[]) =>
    t!.service.parts.db.query<{
      state: string;
      attempts: number;
      next_attempt_at: Date;
      last_error: string | null;
    }>(
      'SELECT state, attempts, next_attempt_at, last_error FROM events WHERE ticket_id = ANY($1) ORDER BY ticket_id, seq',
      [ids],
    );

  before(async () => {
    // The service delivers nothing itself here: each run has a deliverer of its own.
    t = await startTestService(['--roles', 'api,tracker,devnet', ...SERVICE_FLAGS]);
    stream = await prepareChaosStream(t.service, t.service.parts.devnet!, 'hanging', PER_RUN * 3 + 1);
    healthy = await startWebhookReceiver();
    hanging = await startHangingServer();
  });

  after(async () => {
    await deliverer?.stop().catch(() => undefined);
    await service?.stop().catch(() => undefined);
    await t?.service.stop().catch(() => undefined);
    if (t !== undefined) rmSync(t.dataDir, { recursive: true, force: true });
    await healthy?.close();
    await hanging?.close();
  });

  it('baseline: the healthy receiver alone gets three callbacks per transfer', {
    timeout: 60_000,
  }, async (tc) => {
    deliverer = deliverWith(10_000);
    const started = performance.now();
    const paths = Array.from({ length: PER_RUN }, (_, i) => `/base${i}`);
    for (const path of paths) await send(healthy!.url(path));
    await mineUntilAllEnded(stream.observed, 'the baseline transfers MINED');
    await eventually(
      async () => (paths.every((p) => statusesAt(p).length === 3) ? true : undefined),
      'the baseline callbacks',
      300,
    );
    baselineMs = performance.now() - started;
    for (const p of paths) assert.deepEqual(statusesAt(p), ['BROADCASTING', 'SUCCESS', 'MINED']);
    await deliverer.stop();
    deliverer = undefined;
    timeoutMs = Math.min(30_000, Math.max(3_000, Math.round(3 * baselineMs)));
    tc.diagnostic(`baseline ${Math.round(baselineMs)} ms; the hanging receiver's deadline: ${timeoutMs} ms`);
  });

  it('the hanging receiver delays none of the healthy callbacks, times out, and leaks no socket', {
    timeout: 120_000,
  }, async () => {
    deliverer = deliverWith(timeoutMs);
    // The hanging receiver's transfers go first: their events are due before the healthy ones.
    for (let i = 0; i < PER_RUN; i++) hangingTickets.push(await send(hanging!.url));
    const paths = Array.from({ length: PER_RUN }, (_, i) => `/with${i}`);
    for (const path of paths) await send(healthy!.url(path));
    await mineUntilAllEnded(stream.observed, 'the transfers MINED');
    await eventually(
      async () => (paths.every((p) => statusesAt(p).length === 3) ? true : undefined),
      'the healthy callbacks',
      300,
    );
    // Every healthy callback is in while no attempt at the hanging receiver has reached its deadline.
    const early = await attemptsOf(hangingTickets);
    assert.ok(hanging!.requests >= 1, 'the hanging receiver was tried');
    assert.deepEqual(
      early.filter((e) => e.attempts > 0),
      [],
      'no hanging attempt ended before the healthy callbacks were all in',
    );
    assert.equal(hanging!.closed, 0, 'the hanging connections are still open');
    for (const p of paths) assert.deepEqual(statusesAt(p), ['BROADCASTING', 'SUCCESS', 'MINED'], p);

    // The deadline passes: each hanging attempt is recorded, a retry scheduled, its socket closed.
    const timedOut = await eventually(
      async () => {
        const rows = await attemptsOf(hangingTickets);
        const firsts = rows.filter((r) => r.attempts > 0);
        return firsts.length >= PER_RUN ? firsts : undefined;
      },
      'the hanging attempts timed out',
      Math.ceil(timeoutMs / 100) + 300,
    );
    const lastAttempts = await t!.service.parts.db.query<{
      attempted_at: Date;
      error: string | null;
      next_attempt_at: Date;
      state: string;
    }>(
      `SELECT DISTINCT ON (e.id) a.attempted_at, a.error, e.next_attempt_at, e.state
         FROM events e JOIN delivery_attempts a ON a.event_id = e.id
        WHERE e.ticket_id = ANY($1) ORDER BY e.id, a.attempted_at DESC`,
      [hangingTickets],
    );
    assert.equal(lastAttempts.length, timedOut.length);
    for (const row of lastAttempts) {
      assert.equal(row.state, 'pending', JSON.stringify(row));
      assert.match(row.error ?? '', new RegExp(`no answer within ${timeoutMs} ms`));
      // The first retry comes 5 s (+- 20 %) after the failure.
      assert.ok(
        row.next_attempt_at.getTime() - row.attempted_at.getTime() >= 3_900,
        `a retry scheduled: ${JSON.stringify(row)}`,
      );
    }
    await deliverer.stop();
    deliverer = undefined;
    await eventually(
      async () => (hanging!.closed === hanging!.opened ? true : undefined),
      'every hanging connection closed',
    );
  });

  it('the service stops cleanly while its delivery to the hanging receiver is in flight', {
    timeout: 90_000,
  }, async () => {
    const { dataDir } = t!;
    await t!.service.stop();
    const requestsBefore = hanging!.requests;
    service = await startServiceOn(dataDir, SERVICE_FLAGS);
    // The retries fall due within seconds (5 s +- 20 %): the service's deliverer tries again.
    await eventually(
      async () => (hanging!.requests > requestsBefore ? true : undefined),
      'a retry to the hanging receiver in flight',
      200,
    );
    const [attemptsBefore] = await service.parts.db.query<{ n: string }>(
      'SELECT count(*) AS n FROM delivery_attempts a JOIN events e ON e.id = a.event_id WHERE e.ticket_id = ANY($1)',
      [hangingTickets],
    );
    await service.stop();
    service = undefined;
    await eventually(
      async () => (hanging!.closed === hanging!.opened ? true : undefined),
      'the hanging connection closed by the stop',
      50,
    );
    // Reopened to look: the attempt cut short by the stop was not recorded (the event went back).
    service = await startServiceOn(dataDir, [...SERVICE_FLAGS, '--roles', 'api,devnet']);
    const [attemptsAfter] = await service.parts.db.query<{ n: string }>(
      'SELECT count(*) AS n FROM delivery_attempts a JOIN events e ON e.id = a.event_id WHERE e.ticket_id = ANY($1)',
      [hangingTickets],
    );
    assert.equal(attemptsAfter?.n, attemptsBefore?.n, 'no attempt recorded for the delivery cut short');
    const leased = await service.parts.db.query<{ n: string }>(
      'SELECT count(*) AS n FROM events WHERE ticket_id = ANY($1) AND lease_owner IS NOT NULL',
      [hangingTickets],
    );
    assert.equal(leased[0]?.n, '0', 'the events went back unleased');
    await expectInvariants(
      { ...stream.observed, db: service.parts.db, devnet: service.parts.devnet!, url: service.url! },
      { accepted },
    );
  });
});
