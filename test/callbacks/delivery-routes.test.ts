// GET /v2/ticket/{id}/deliveries and POST /v2/ticket/{id}/redeliver through the HTTP frame:
// who may see and redeliver (the submitting key or admin), what an attempt shows, and a
// redelivery that queues the ticket's latest state.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { uuidv7 } from '../../src/crypto/random-id.js';
import { deliveryRoutes } from '../../src/http/routes/delivery-routes.js';
import { KEYS, type TestApp, testApp } from '../http/support.js';
import { seedTicket } from '../support/seed-store.js';
import { type FreshDb, testTargets } from '../support/test-databases.js';
import { newMasterKey, testClock, testDeliverer, ticketWithEvents } from './outbox-fixtures.js';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js';

interface DeliveriesJson {
  ticketId: string;
  callbackUrl: string | null;
  events: {
    webhookId: string;
    seq: number;
    status: string;
    state: string;
    attempts: number;
    nextAttemptAt: string | null;
    deliveredAt: string | null;
    lastError: string | null;
    deliveries: { at: string; statusCode: number | null; latencyMs: number; error: string | null }[];
  }[];
}

describe('delivery routes', () => {
  let fresh: FreshDb;
  let t: TestApp;
  let receiver: WebhookReceiver;
  let ticket: string;
  let silent: string;
  const clock = testClock(new Date(Date.now() + 60_000));

  before(async () => {
    fresh = await testTargets()[0]!.fresh();
    receiver = await startWebhookReceiver();
    let first = true;
    receiver.script = () => {
      const answer = first ? { status: 500, body: 'try later' } : { status: 200 };
      first = false;
      return answer;
    };
    ticket = await ticketWithEvents(fresh.db, {
      url: receiver.url(),
      apiKeyId: 'k-submit',
      moves: ['SUCCESS'],
    });
    silent = await seedTicket(fresh.db, { apiKeyId: 'k-submit' });
    const deliverer = testDeliverer(fresh.db, newMasterKey(), clock);
    await deliverer.runDueNow();
    clock.advance(5_000);
    await deliverer.runDueNow();
    await deliverer.stop();
    t = testApp({ routes: [deliveryRoutes({ ctx: { db: fresh.db, now: clock } })] });
  });
  after(async () => {
    await t?.app.close();
    await receiver?.close();
    await fresh?.dispose();
  });

  const get = (id: string, key?: string) =>
    t.app.inject({
      method: 'GET',
      url: `/v2/ticket/${id}/deliveries`,
      ...(key && { headers: { authorization: `Bearer ${key}` } }),
    });
  const redeliver = (id: string, key?: string) =>
    t.app.inject({
      method: 'POST',
      url: `/v2/ticket/${id}/redeliver`,
      ...(key && { headers: { authorization: `Bearer ${key}` } }),
    });

  it('shows the owner every event with each attempt: time, status, latency, error', async () => {
    const res = await get(ticket, KEYS.submit);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json() as DeliveriesJson;
    assert.equal(body.ticketId, ticket);
    assert.equal(body.callbackUrl, receiver.url());
    assert.deepEqual(
      body.events.map((e) => [e.seq, e.status, e.state, e.attempts]),
      [
        [1, 'BROADCASTING', 'delivered', 2],
        [2, 'SUCCESS', 'delivered', 1],
      ],
    );
    const [failed, ok] = body.events[0]!.deliveries;
    assert.equal(failed?.statusCode, 500);
    assert.equal(failed?.error, 'HTTP 500: try later');
    assert.equal(ok?.statusCode, 200);
    assert.equal(ok?.error, null);
    assert.ok(Date.parse(ok!.at) - Date.parse(failed!.at) === 5_000);
    assert.ok(
      body.events.every((e) => e.deliveries.every((d) => Number.isInteger(d.latencyMs) && d.latencyMs >= 0)),
    );
  });

  it('admin sees it too; another key is forbidden, no key is unauthorized', async () => {
    assert.equal((await get(ticket, KEYS.admin)).statusCode, 200);
    assert.equal((await get(ticket, KEYS.read)).json().code, 'FORBIDDEN');
    assert.equal((await get(ticket)).json().code, 'UNAUTHORIZED');
  });

  it('unknown ticket: 404 record not found; not a ticket ID: 400', async () => {
    const unknown = await get(uuidv7(), KEYS.admin);
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().message, 'record not found');
    assert.equal((await get('nope', KEYS.admin)).json().code, 'INVALID_PARAMETER');
  });

  it('redeliver queues the latest state as a new event; the owner or admin only', async () => {
    assert.equal((await redeliver(ticket, KEYS.read)).statusCode, 403);
    const res = await redeliver(ticket, KEYS.submit);
    assert.equal(res.statusCode, 202, res.body);
    const queued = res.json() as { ticketId: string; webhookId: string; seq: number };
    assert.equal(queued.seq, 3);
    const events = ((await get(ticket, KEYS.submit)).json() as DeliveriesJson).events;
    assert.deepEqual(
      events.map((e) => [e.seq, e.status, e.state]),
      [
        [1, 'BROADCASTING', 'delivered'],
        [2, 'SUCCESS', 'delivered'],
        [3, 'SUCCESS', 'pending'],
      ],
    );
    assert.equal(events[2]?.webhookId, queued.webhookId);
    assert.equal(events[2]?.nextAttemptAt, clock().toISOString());
  });

  it('redeliver of a ticket without a callback URL is a 400', async () => {
    const res = await redeliver(silent, KEYS.admin);
    assert.equal(res.statusCode, 400);
    assert.match(res.json().detail, /has no callback_url/);
  });
});
