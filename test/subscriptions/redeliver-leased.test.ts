// A redelivery asked while a deliverer holds the event (its attempt under way): refused, the
// lease and the attempt's record left to the deliverer, so the event is not sent twice and the
// attempt is not lost from the log; once the lease runs out (a deliverer gone) it is taken back.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import { subscriptionEventByWebhookId } from '../../src/store/subscriptions/subscription-event-replay.js';
import {
  insertSubscriptionEvents,
  leaseSubscriptionEvents,
  recordSubscriptionAttempts,
} from '../../src/store/subscriptions/subscription-events.js';
import {
  EventInDeliveryError,
  redeliverEvent,
  registerSubscription,
} from '../../src/usecases/subscriptions/manage-subscriptions.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { party } from '../support/token-world.js';

const MASTER = new Uint8Array(randomBytes(32));
const NOW = new Date('2026-11-28T12:00:00Z');
const LEASE_MS = 60_000;
const later = (ms: number) => new Date(NOW.getTime() + ms);

describeOnEachDb('a redelivery of an event being delivered', (fresh) => {
  let n = 0;
  /** A subscription with one pending event, leased to `owner`: its webhook-id and subscription. */
  async function leasedEvent(owner: string) {
    n++;
    const { subscription } = await registerSubscription(
      fresh.db,
      MASTER,
      { maxAddresses: 3, perKey: 5 },
      {
        apiKeyId: `redeliver-leased-${n}`,
        url: 'https://wallet.example/hook',
        events: ['tokens.received.unconfirmed'],
        description: '',
        addresses: [party(`redeliver leased ${n}`).address],
        now: NOW,
      },
    );
    const webhookId = `msg_redeliver_leased_${n}`;
    await insertSubscriptionEvents(
      fresh.db,
      [
        {
          webhookId,
          subscriptionId: subscription.id,
          type: 'tokens.received.unconfirmed',
          txid: null,
          address: null,
          status: null,
          score: BigInt(n),
          payload: {},
          state: 'pending',
        },
      ],
      NOW,
    );
    const leased = await leaseSubscriptionEvents(fresh.db, { owner, now: NOW, leaseMs: LEASE_MS, limit: 10 });
    assert.deepEqual(
      leased.map((e) => e.webhookId),
      [webhookId],
    );
    const event = (await subscriptionEventByWebhookId(fresh.db, subscription.id, webhookId))!;
    return { event, leased: leased[0]! };
  }
  const leaseOf = async (id: string) =>
    (
      await fresh.db.query<{ lease_owner: string | null; state: string }>(
        'SELECT lease_owner, state FROM subscription_events WHERE id = $1',
        [id],
      )
    )[0]!;

  it('refused while the lease holds; the deliverer records its attempt as it would have', async () => {
    const { event, leased } = await leasedEvent('deliverer-a');
    await assert.rejects(redeliverEvent(fresh.db, event, later(1_000)), EventInDeliveryError);
    assert.equal((await leaseOf(event.id)).lease_owner, 'deliverer-a', 'the lease is the deliverer’s still');
    const recorded = await fresh.db.transaction((tx) =>
      recordSubscriptionAttempts(
        tx,
        'deliverer-a',
        [
          {
            eventId: leased.id,
            subscriptionId: leased.subscriptionId,
            attempt: { at: later(2_000), statusCode: 200, latencyMs: 4, error: null },
            outcome: { kind: 'delivered' },
          },
        ],
        86_400_000,
      ),
    );
    assert.deepEqual(recorded.disabled, []);
    assert.equal((await leaseOf(event.id)).state, 'delivered', 'the attempt under way was recorded');
    // Once recorded, a redelivery sends it again.
    await redeliverEvent(fresh.db, event, later(3_000));
    assert.deepEqual(await leaseOf(event.id), { lease_owner: null, state: 'pending' });
  });

  it('a lease run out (its deliverer gone) is taken back by a redelivery', async () => {
    const { event } = await leasedEvent('deliverer-gone');
    await redeliverEvent(fresh.db, event, later(LEASE_MS + 1_000));
    assert.deepEqual(await leaseOf(event.id), { lease_owner: null, state: 'pending' });
  });
});
