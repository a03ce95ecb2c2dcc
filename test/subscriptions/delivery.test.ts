// Address webhooks' deliverer against a receiver on loopback, on each database: events are
// signed with the subscription's own secret (verified with the standardwebhooks package), a
// failure is retried on the callbacks' schedule, a subscription that keeps failing for longer
// than the disable window (days in production, a short setting here) is disabled with the
// reason and its pending events skipped, it can be enabled again; 410 Gone disables at once;
// and two deliverers at once send each event once.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, it } from 'node:test';
import { parseCallbackAllow } from '../../src/callbacks/address-guard.js';
import { createSubscriptionDeliverer } from '../../src/callbacks/subscription-deliverer.js';
import {
  attemptsOfEvent,
  subscriptionEventPage,
} from '../../src/store/subscriptions/subscription-event-replay.js';
import { subscriptionById } from '../../src/store/subscriptions/subscriptions-store.js';
import { dispatchOnce } from '../../src/usecases/subscriptions/dispatch-events.js';
import {
  changeSubscription,
  registerSubscription,
  sendTestEvent,
} from '../../src/usecases/subscriptions/manage-subscriptions.js';
import { startWebhookReceiver, verifyWebhook, type WebhookReceiver } from '../callbacks/webhook-receiver.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { seedTransaction } from '../support/seed-store.js';
import { party } from '../support/token-world.js';

const MASTER = new Uint8Array(randomBytes(32));
const DAY = 24 * 3_600_000;
const silent = { info() {}, warn() {}, error() {}, debug() {} } as never;

describeOnEachDb('address webhooks: the deliverer', (fresh) => {
  let receiver: WebhookReceiver;
  let now = new Date();
  const clock = () => now;
  const deliverer = (owner = 'd1') =>
    createSubscriptionDeliverer({
      db: fresh.db,
      masterKey: MASTER,
      allow: parseCallbackAllow(['127.0.0.1']),
      log: silent,
      clock,
      random: () => 0.5,
      owner,
      disableAfterMs: DAY,
    });

  async function subscribe(path: string, address: string) {
    return registerSubscription(
      fresh.db,
      MASTER,
      { maxAddresses: 10, perKey: 100 },
      {
        apiKeyId: 'key',
        url: receiver.url(path),
        events: ['tokens.received.unconfirmed', 'tokens.received.confirmed'],
        description: '',
        addresses: [address],
        now,
      },
    );
  }

  before(async () => {
    receiver = await startWebhookReceiver((request) =>
      request.path.startsWith('/fail')
        ? { status: 500, body: 'down' }
        : request.path.startsWith('/gone')
          ? { status: 410 }
          : { status: 204 },
    );
  });
  after(() => receiver.close());

  it('signs each event with its subscription secret, verified by standardwebhooks', async () => {
    const address = party('delivery ok').address;
    const { subscription, secret } = await subscribe('/ok', address);
    await seedTransaction(fresh.db, {
      outputs: [{ owner: address, amount: 42n }],
      senders: [party('x').address],
    });
    await dispatchOnce(fresh.db, now);
    await sendTestEvent(fresh.db, subscription, now);
    const d = deliverer();
    assert.equal(await d.runDueNow(), 2);
    await d.stop();
    const got = receiver.received.filter((r) => r.path === '/ok');
    assert.equal(got.length, 2);
    const [event, test] = got.map(
      (r) => verifyWebhook(secret, r) as { type: string; data: Record<string, unknown> },
    );
    assert.equal(event!.type, 'tokens.received.unconfirmed');
    assert.equal(event!.data.amount, '42');
    assert.equal(test!.type, 'webhook.test');
    const page = await subscriptionEventPage(fresh.db, {
      subscriptionId: subscription.id,
      from: 0n,
      order: 'asc',
      limit: 10,
    });
    assert.deepEqual(
      page.map((e) => e.state),
      ['delivered', 'delivered'],
    );
  });

  it('keeps failing past the disable window: disabled with the reason, pending events skipped; enabled again', async () => {
    const address = party('delivery fail').address;
    const { subscription } = await subscribe('/fail', address);
    await seedTransaction(fresh.db, {
      outputs: [{ owner: address, amount: 1n }],
      senders: [party('y').address],
    });
    await seedTransaction(fresh.db, {
      outputs: [{ owner: address, amount: 2n }],
      senders: [party('y').address],
    });
    await dispatchOnce(fresh.db, now);
    const d = deliverer();
    assert.equal(await d.runDueNow(), 2, 'the first attempts');
    let s = (await subscriptionById(fresh.db, subscription.id))!;
    assert.equal(s.enabled, true);
    assert.deepEqual(s.failingSince, now);
    // Retried on the schedule for a day and more: each retry fails.
    for (let hour = 0; hour < 26 && s.enabled; hour++) {
      now = new Date(now.getTime() + 3_600_000);
      await d.runDueNow();
      s = (await subscriptionById(fresh.db, subscription.id))!;
    }
    assert.equal(s.enabled, false);
    assert.match(s.disabledReason ?? '', /deliveries failed since .* HTTP 500: down/);
    assert.ok(s.disabledAt!.getTime() - s.failingSince!.getTime() >= DAY);
    const events = await subscriptionEventPage(fresh.db, {
      subscriptionId: subscription.id,
      from: 0n,
      order: 'asc',
      limit: 10,
    });
    assert.ok(
      events.every((e) => e.state === 'skipped' || e.state === 'failed'),
      JSON.stringify(events.map((e) => e.state)),
    );
    const attempts = await attemptsOfEvent(fresh.db, events[0]!.id);
    assert.ok(attempts.length >= 3);
    assert.ok(attempts.every((a) => a.statusCode === 500));
    // Nothing more is sent while disabled.
    const before = receiver.received.length;
    now = new Date(now.getTime() + DAY);
    await sendTestEvent(fresh.db, s, now);
    assert.equal(await d.runDueNow(), 0);
    assert.equal(receiver.received.length, before);
    // Enabled again: its run of failures starts afresh, and what is pending is sent.
    s = await changeSubscription(fresh.db, subscription.id, { enabled: true, now });
    assert.deepEqual([s.enabled, s.disabledReason, s.failingSince], [true, null, null]);
    assert.equal(await d.runDueNow(), 1, 'the test event made while disabled');
    await d.stop();
  });

  it('410 Gone disables at once', async () => {
    const address = party('delivery gone').address;
    const { subscription } = await subscribe('/gone', address);
    await sendTestEvent(fresh.db, subscription, now);
    const d = deliverer();
    await d.runDueNow();
    await d.stop();
    const s = (await subscriptionById(fresh.db, subscription.id))!;
    assert.equal(s.enabled, false);
    assert.match(s.disabledReason ?? '', /410 Gone/);
  });

  it('two deliverers at once send each event once', async () => {
    const address = party('delivery pair').address;
    const { subscription } = await subscribe('/pair', address);
    for (let i = 0; i < 30; i++) await sendTestEvent(fresh.db, subscription, now);
    const [a, b] = [deliverer('a'), deliverer('b')];
    const sent = (await Promise.all([a.runDueNow(), b.runDueNow()])).reduce((x, y) => x + y, 0);
    await Promise.all([a.stop(), b.stop()]);
    assert.equal(sent, 30);
    const ids = receiver.received.filter((r) => r.path === '/pair').map((r) => r.headers['webhook-id']);
    assert.equal(ids.length, 30);
    assert.equal(new Set(ids).size, 30);
  });
});
