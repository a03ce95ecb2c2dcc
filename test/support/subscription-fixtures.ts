// Subscription rows and their events written straight into the store, for the store's own tests
// of leases, attempts and disabling.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Db } from '../../src/store/db/db.js';
import type { NewSubscriptionEvent } from '../../src/store/subscriptions/subscription-events.js';
import { insertSubscription } from '../../src/store/subscriptions/subscriptions-store.js';

/** A pending `tokens.received.unconfirmed` event of `subscriptionId`, empty, at `score`. */
export function pendingEvent(subscriptionId: string, score: bigint): NewSubscriptionEvent {
  return {
    webhookId: `msg_${randomUUID()}`,
    subscriptionId,
    type: 'tokens.received.unconfirmed',
    txid: null,
    address: null,
    status: null,
    score,
    payload: {},
    state: 'pending',
  };
}

/** An enabled subscription of API key `key` to `tokens.received.unconfirmed` at `url`; its id. */
export async function seedSubscription(db: Db, url: string, now: Date, key = 'key'): Promise<string> {
  const id = randomUUID();
  await db.transaction((tx) =>
    insertSubscription(tx, {
      id,
      apiKeyId: key,
      url,
      events: ['tokens.received.unconfirmed'],
      description: '',
      secretEnc: new Uint8Array(randomBytes(16)),
      now,
    }),
  );
  return id;
}
