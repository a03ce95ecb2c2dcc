// Address webhooks, on each database: a redelivery starts its retry schedule at the first step
// (the event's attempts count from zero again), and an address added to a subscription starts at
// the change, as a registration starts: a record committed before the add is no event for it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, it } from 'node:test';
import { parseCallbackAllow } from '../../src/callbacks/address-guard.js';
import { createSubscriptionDeliverer } from '../../src/callbacks/subscription-deliverer.js';
import { subscriptionEventPage } from '../../src/store/subscriptions/subscription-event-replay.js';
import { dispatchOnce } from '../../src/usecases/subscriptions/dispatch-events.js';
import {
  changeSubscriptionAddresses,
  redeliverEvent,
  registerSubscription,
} from '../../src/usecases/subscriptions/manage-subscriptions.js';
import { startWebhookReceiver, type WebhookReceiver } from '../callbacks/webhook-receiver.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { seedTransaction } from '../support/seed-store.js';
import { party } from '../support/token-world.js';

const MASTER = new Uint8Array(randomBytes(32));
const silent = { info() {}, warn() {}, error() {}, debug() {} } as never;
const LIMITS = { maxAddresses: 10, perKey: 100 };

describeOnEachDb('address webhooks: a redelivery and an added address', (fresh) => {
  let receiver: WebhookReceiver;
  let now = new Date();
  before(async () => {
    receiver = await startWebhookReceiver((r) =>
      r.path.startsWith('/fail') ? { status: 503 } : { status: 204 },
    );
  });
  after(() => receiver.close());

  const events = async (id: string) =>
    subscriptionEventPage(fresh.db, { subscriptionId: id, from: 0n, order: 'asc', limit: 100 });

  it('a redelivered event that fails is retried on the schedule from its start (5 s), not an hour later', async () => {
    const address = party('redeliver schedule').address;
    const { subscription } = await registerSubscription(fresh.db, MASTER, LIMITS, {
      apiKeyId: 'k',
      url: receiver.url('/fail'),
      events: ['tokens.received.unconfirmed'],
      description: '',
      addresses: [address],
      now,
    });
    await seedTransaction(fresh.db, {
      outputs: [{ owner: address, amount: 5n }],
      senders: [party('s').address],
    });
    await dispatchOnce(fresh.db, now);
    const d = createSubscriptionDeliverer({
      db: fresh.db,
      masterKey: MASTER,
      allow: parseCallbackAllow(['127.0.0.1']),
      log: silent,
      clock: () => now,
      random: () => 0.5,
      owner: 'redeliver-test',
      disableAfterMs: 100 * 24 * 3_600_000,
    });
    try {
      // Fail through the 24 h window: the event ends `failed`.
      for (let i = 0; i < 60; i++) {
        await d.runDueNow();
        const [e] = await events(subscription.id);
        if (e!.state !== 'pending') break;
        now = new Date(e!.nextAttemptAt!.getTime());
      }
      const [failed] = await events(subscription.id);
      assert.equal(failed!.state, 'failed');
      // The owner asks for it again ("sends it again"; a fresh retry window): it fails once more.
      await redeliverEvent(fresh.db, failed!, now);
      await d.runDueNow();
      const [again] = await events(subscription.id);
      assert.equal(again!.state, 'pending');
      assert.equal(again!.attempts, 1, 'attempts count from the redelivery');
      const waitMs = again!.nextAttemptAt!.getTime() - now.getTime();
      assert.ok(
        waitMs <= 6_000,
        `after ${failed!.attempts} earlier attempts, the redelivery's first retry waits ${waitMs} ms (the schedule's first step is 5 s)`,
      );
    } finally {
      await d.stop();
    }
  });

  it('an added address starts at the change: a record committed before the add is no event for it', async () => {
    const watched = party('added address watched').address;
    const added = party('added address added').address;
    const { subscription } = await registerSubscription(fresh.db, MASTER, LIMITS, {
      apiKeyId: 'k',
      url: receiver.url('/ok'),
      events: ['tokens.received.unconfirmed'],
      description: '',
      addresses: [watched],
      now,
    });
    // A transfer to `added` commits before the address is added (the dispatcher has not run yet).
    await seedTransaction(fresh.db, {
      outputs: [{ owner: added, amount: 7n }],
      senders: [party('s2').address],
    });
    await changeSubscriptionAddresses(fresh.db, LIMITS, subscription.id, { add: [added] });
    await dispatchOnce(fresh.db, now);
    const addressesOf = async () =>
      (await events(subscription.id)).map((e) => (e.payload as { data: { address: string } }).data.address);
    const got = await addressesOf();
    assert.deepEqual(
      got,
      [],
      `events made for a record older than the address's watch: ${JSON.stringify(got)}`,
    );
    // One committed after the add is.
    await seedTransaction(fresh.db, {
      outputs: [{ owner: added, amount: 8n }],
      senders: [party('s3').address],
    });
    await dispatchOnce(fresh.db, now);
    assert.deepEqual(await addressesOf(), [added]);
  });
});
