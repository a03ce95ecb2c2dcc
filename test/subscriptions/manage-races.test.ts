// Subscription writes racing each other: a change, an address change or a test event asked after
// the route found the subscription and before a delete of it committed is refused as not found
// (the route answers 404, not 500); two registrations of one key at once cannot both count one
// below the per-key cap (PostgreSQL: the second waits for the first).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import {
  holdKeySubscriptions,
  insertSubscription,
} from '../../src/store/subscriptions/subscriptions-store.js';
import {
  changeSubscription,
  changeSubscriptionAddresses,
  registerSubscription,
  removeSubscription,
  SubscriptionGoneError,
  SubscriptionLimitError,
  sendTestEvent,
} from '../../src/usecases/subscriptions/manage-subscriptions.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { backendPid, holdOpen, runWhileHeld } from '../support/held-transaction.js';
import { party } from '../support/token-world.js';

const MASTER = new Uint8Array(randomBytes(32));
const LIMITS = { maxAddresses: 3, perKey: 1 };

describeOnEachDb('subscription writes racing each other', (fresh) => {
  const register = (key: string) =>
    registerSubscription(fresh.db, MASTER, LIMITS, {
      apiKeyId: key,
      url: 'https://wallet.example/hook',
      events: ['address.transaction'],
      description: '',
      addresses: [party(`manage races ${key}`).address],
      now: new Date(),
    });

  it('a write to a subscription deleted after it was found is refused as gone, nothing written', async () => {
    const { subscription } = await register('races-key-1');
    await removeSubscription(fresh.db, subscription.id);
    const now = new Date();
    await assert.rejects(
      changeSubscription(fresh.db, subscription.id, { enabled: false, now }),
      SubscriptionGoneError,
    );
    await assert.rejects(
      changeSubscriptionAddresses(fresh.db, LIMITS, subscription.id, { add: [party('races more').address] }),
      SubscriptionGoneError,
    );
    await assert.rejects(sendTestEvent(fresh.db, subscription, now), SubscriptionGoneError);
  });

  it('two registrations of one key at once: the second counts the first and is refused', async (t) => {
    if (fresh.db.dialect !== 'postgres') return t.skip('PGlite runs one transaction at a time');
    const key = 'races-key-2';
    // The first registration holds the key's turn, its subscription written but not committed.
    const first = holdOpen(fresh.db, async (tx) => {
      await holdKeySubscriptions(tx, key);
      await insertSubscription(tx, {
        id: '01900000-0000-7000-8000-000000000001',
        apiKeyId: key,
        url: 'https://wallet.example/first',
        events: ['address.transaction'],
        description: '',
        secretEnc: new Uint8Array([1]),
        now: new Date(),
      });
      return backendPid(tx);
    });
    const second = runWhileHeld(fresh.db, first, () => register(key), 'the second registration to wait');
    await assert.rejects(second, SubscriptionLimitError);
  });
});
