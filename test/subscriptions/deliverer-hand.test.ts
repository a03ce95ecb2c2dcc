// What an address webhook deliverer holds in hand, on each database: one slow receiver's backlog
// takes at most its room of the hand, so other receivers' events go out while it hangs; and an
// event waiting in hand is sent as its subscription stands at the send, not at the lease (one
// disabled meanwhile is not sent, one pointed at a new URL goes there, and one a stopped
// deliverer held through a disable is not sent once the subscription is enabled again).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import { parseCallbackAllow } from '../../src/callbacks/address-guard.js';
import { createSubscriptionDeliverer } from '../../src/callbacks/subscription-deliverer.js';
import { subscriptionEventPage } from '../../src/store/subscriptions/subscription-event-replay.js';
import { leaseSubscriptionEvents } from '../../src/store/subscriptions/subscription-events.js';
import type { SubscriptionRow } from '../../src/store/subscriptions/subscriptions-store.js';
import { dispatchOnce } from '../../src/usecases/subscriptions/dispatch-events.js';
import {
  changeSubscription,
  registerSubscription,
} from '../../src/usecases/subscriptions/manage-subscriptions.js';
import { startWebhookReceiver, type WebhookReceiver } from '../callbacks/webhook-receiver.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { seedTransaction } from '../support/seed-store.js';
import { party } from '../support/token-world.js';

const MASTER = new Uint8Array(randomBytes(32));
const silent = { info() {}, warn() {}, error() {}, debug() {} } as never;

/** A receiver that holds every answer until `release()`. */
async function hangingReceiver(): Promise<{ receiver: WebhookReceiver; release: () => void }> {
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const receiver = await startWebhookReceiver(() => ({ status: 204, hold: held }));
  return { receiver, release };
}

async function until(what: string, done: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 400 && !(await done()); i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(await done(), `timed out waiting for ${what}`);
}

describeOnEachDb('address webhooks: what a deliverer holds in hand', (fresh) => {
  const deliverer = (options: { concurrency?: number; perOriginLimit?: number; clock?: () => Date }) =>
    createSubscriptionDeliverer({
      db: fresh.db,
      masterKey: MASTER,
      allow: parseCallbackAllow(['127.0.0.1']),
      log: silent,
      random: () => 0.5,
      owner: `hand-${randomBytes(4).toString('hex')}`,
      ...options,
    });

  /** A subscription to `url` with `count` unconfirmed receipts waiting to be sent. */
  async function withEvents(name: string, url: string, count: number): Promise<SubscriptionRow> {
    const address = party(name).address;
    const { subscription } = await registerSubscription(
      fresh.db,
      MASTER,
      { maxAddresses: 10, perKey: 100 },
      {
        apiKeyId: `key-${name}`,
        url,
        events: ['tokens.received.unconfirmed'],
        description: '',
        addresses: [address],
        now: new Date(),
      },
    );
    for (let i = 0; i < count; i++)
      await seedTransaction(fresh.db, { outputs: [{ owner: address, amount: BigInt(i + 1) }] });
    await dispatchOnce(fresh.db, new Date());
    return subscription;
  }

  async function statesOf(subscription: SubscriptionRow): Promise<string[]> {
    const page = await subscriptionEventPage(fresh.db, {
      subscriptionId: subscription.id,
      from: 0n,
      order: 'asc',
      limit: 100,
    });
    return page.map((e) => e.state);
  }

  it('one hanging receiver with a backlog does not hold up the others', async () => {
    const slow = await hangingReceiver();
    const fast = await startWebhookReceiver();
    // The hanging receiver's 20 events are older than the other's 4, and more than the hand holds.
    const stuck = await withEvents('hand slow', slow.receiver.url('/slow'), 20);
    const other = await withEvents('hand fast', fast.url('/fast'), 4);
    const d = deliverer({ concurrency: 4, perOriginLimit: 2 });
    try {
      const running = d.runDueNow();
      await until('every event of the answering receiver', () => fast.received.length === 4);
      assert.ok(slow.receiver.open <= 2, `at most 2 held at the hanging receiver, saw ${slow.receiver.open}`);
      // Their outcomes are written a moment after the answers.
      await until('their deliveries written', async () =>
        (await statesOf(other)).every((state) => state === 'delivered'),
      );
      slow.release();
      await running;
      assert.equal(slow.receiver.received.length, 20, 'then the hanging receiver had its events, each once');
      assert.ok((await statesOf(stuck)).every((s) => s === 'delivered'));
    } finally {
      slow.release();
      await d.stop();
      await slow.receiver.close();
      await fast.close();
    }
  });

  it('an event whose subscription is disabled while it waits in hand is not sent', async () => {
    const { receiver, release } = await hangingReceiver();
    const subscription = await withEvents('hand disabled', receiver.url('/a'), 2);
    const d = deliverer({ concurrency: 1, perOriginLimit: 2 });
    try {
      const running = d.runDueNow();
      await until('the first send to hang', () => receiver.open === 1);
      await changeSubscription(fresh.db, subscription.id, { enabled: false, now: new Date() });
      release();
      await running;
      assert.equal(receiver.received.length, 1, 'the event in hand was not sent after the disable');
      assert.deepEqual(await statesOf(subscription), ['delivered', 'skipped']);
    } finally {
      release();
      await d.stop();
      await receiver.close();
    }
  });

  it('an event whose subscription is pointed elsewhere while it waits in hand goes to the new URL', async () => {
    const old = await hangingReceiver();
    const moved = await startWebhookReceiver();
    const subscription = await withEvents('hand moved', old.receiver.url('/old'), 2);
    const d = deliverer({ concurrency: 1, perOriginLimit: 2 });
    try {
      const running = d.runDueNow();
      await until('the first send to hang', () => old.receiver.open === 1);
      await changeSubscription(fresh.db, subscription.id, { url: moved.url('/new'), now: new Date() });
      old.release();
      await running;
      assert.equal(old.receiver.received.length, 1, 'the old URL had only the event already on its way');
      assert.deepEqual(
        moved.received.map((r) => r.path),
        ['/new'],
      );
      assert.deepEqual(await statesOf(subscription), ['delivered', 'delivered']);
    } finally {
      old.release();
      await d.stop();
      await old.receiver.close();
      await moved.close();
    }
  });

  it('an event a stopped deliverer held when its subscription was disabled is skipped when it is enabled again', async () => {
    const receiver = await startWebhookReceiver();
    const subscription = await withEvents('hand left over', receiver.url('/left'), 1);
    const now = new Date();
    // A deliverer leases the event and stops before sending it; the owner disables meanwhile.
    const [held] = await leaseSubscriptionEvents(fresh.db, {
      owner: 'stopped',
      now,
      leaseMs: 60_000,
      limit: 10,
    });
    assert.ok(held);
    await changeSubscription(fresh.db, subscription.id, { enabled: false, now });
    assert.deepEqual(await statesOf(subscription), ['pending'], 'left to its holder while the lease runs');
    // Enabled again after the lease ran out.
    const later = new Date(now.getTime() + 120_000);
    await changeSubscription(fresh.db, subscription.id, { enabled: true, now: later });
    const d = deliverer({ clock: () => later });
    try {
      await d.runDueNow();
    } finally {
      await d.stop();
      await receiver.close();
    }
    assert.equal(receiver.received.length, 0, 'an event from before the disable is not sent after it');
    assert.deepEqual(await statesOf(subscription), ['skipped']);
  });
});
