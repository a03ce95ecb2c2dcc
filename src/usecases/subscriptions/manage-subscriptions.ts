// The writes of address subscriptions (issue 31, part 1), for the routes: register (a signing
// secret made here, returned once, stored sealed), change, enable again, delete, change the
// address list within its bound, send a test event, redeliver an event. Each is one transaction.
import { randomBytes } from 'node:crypto';
import { uuidv7 } from '../../crypto/random-id.js';
import { seal } from '../../crypto/secret-box.js';
import type { Db, Queryable } from '../../store/db/db.js';
import {
  feedEnd,
  redeliverSubscriptionEvent,
  type SubscriptionEventInfo,
} from '../../store/subscriptions/subscription-event-replay.js';
import { insertSubscriptionEvents } from '../../store/subscriptions/subscription-events.js';
import { holdDispatchCursor } from '../../store/subscriptions/subscription-feed.js';
import {
  changeAddresses,
  deleteSubscription,
  holdKeySubscriptions,
  insertSubscription,
  lockSubscription,
  type SubscriptionRow,
  subscriptionById,
  subscriptionCount,
  updateSubscription,
} from '../../store/subscriptions/subscriptions-store.js';
import { TEST_EVENT_TYPE } from './address-event.js';

export interface SubscriptionLimits {
  /** Addresses one subscription watches at most. */
  readonly maxAddresses: number;
  /** Subscriptions one API key has at most. */
  readonly perKey: number;
}

/** A limit passed: nothing was written. */
export class SubscriptionLimitError extends Error {}

/** The subscription was deleted before this write's turn (after the caller found it): nothing written. */
export class SubscriptionGoneError extends Error {
  constructor(id: string) {
    super(`subscription ${id} was deleted`);
  }
}

/** A deliverer is sending the event now: a redelivery would send it twice. */
export class EventInDeliveryError extends Error {
  constructor(webhookId: string) {
    super(`event ${webhookId} is being delivered now; ask again once its attempt is recorded`);
  }
}

/** Locks subscription `id` for the rest of the transaction; throws SubscriptionGoneError when it is gone. */
async function lockedOrGone(tx: Queryable, id: string): Promise<SubscriptionRow> {
  const row = await lockSubscription(tx, id);
  if (row === null) throw new SubscriptionGoneError(id);
  return row;
}

export interface AddressChange {
  readonly add?: readonly string[];
  readonly remove?: readonly string[];
  readonly replace?: readonly string[];
}

export async function registerSubscription(
  db: Db,
  masterKey: Uint8Array,
  limits: SubscriptionLimits,
  input: {
    readonly apiKeyId: string;
    readonly url: string;
    readonly events: readonly string[];
    readonly description: string;
    readonly addresses: readonly string[];
    readonly now: Date;
  },
): Promise<{ readonly subscription: SubscriptionRow; readonly secret: string }> {
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const id = uuidv7(input.now.getTime());
  checkAddressCount(new Set(input.addresses).size, limits);
  await db.transaction(async (tx) => {
    // Registrations of one key take turns, so that two at once cannot both count one below the cap.
    await holdKeySubscriptions(tx, input.apiKeyId);
    if ((await subscriptionCount(tx, input.apiKeyId)) >= limits.perKey)
      throw new SubscriptionLimitError(`an API key has at most ${limits.perKey} subscriptions`);
    const start = await insertSubscription(tx, {
      id,
      apiKeyId: input.apiKeyId,
      url: input.url,
      events: input.events,
      description: input.description,
      secretEnc: seal(masterKey, secret),
      now: input.now,
    });
    await changeAddresses(tx, id, { add: input.addresses }, start);
  });
  return { subscription: (await subscriptionById(db, id))!, secret };
}

function checkAddressCount(count: number, limits: SubscriptionLimits): void {
  if (count > limits.maxAddresses)
    throw new SubscriptionLimitError(
      `a subscription watches at most ${limits.maxAddresses} addresses; this change would make it ${count}`,
    );
}

/**
 * Changes the address list; refused whole (SubscriptionLimitError) past the bound. The count after.
 * The dispatcher's cursor is held first, as a registration holds it (insertSubscription): a
 * record committed while the change is in flight scores above the cursor, so an added address
 * has its event for it, not a dispatch round that read the old list. Cursor before subscription
 * row, as a dispatch round takes them (its event rows check the subscription's key).
 */
export async function changeSubscriptionAddresses(
  db: Db,
  limits: SubscriptionLimits,
  id: string,
  change: AddressChange,
): Promise<number> {
  return db.transaction(async (tx) => {
    await holdDispatchCursor(tx);
    await lockedOrGone(tx, id);
    const count = await changeAddresses(tx, id, change);
    checkAddressCount(count, limits);
    return count;
  });
}

export async function changeSubscription(
  db: Db,
  id: string,
  change: {
    readonly url?: string;
    readonly events?: readonly string[];
    readonly description?: string;
    readonly enabled?: boolean;
    readonly now: Date;
  },
): Promise<SubscriptionRow> {
  return db.transaction(async (tx) => {
    await lockedOrGone(tx, id);
    await updateSubscription(tx, id, change);
    return (await subscriptionById(tx, id))!;
  });
}

export async function removeSubscription(db: Db, id: string): Promise<void> {
  await db.transaction((tx) => deleteSubscription(tx, id));
}

/** A `webhook.test` event, due now (listed at the feed's current end); its webhook-id. */
export async function sendTestEvent(db: Db, subscription: SubscriptionRow, now: Date): Promise<string> {
  const webhookId = `msg_test_${randomBytes(12).toString('base64url')}`;
  await db.transaction(async (tx) => {
    await lockedOrGone(tx, subscription.id);
    const score = await feedEnd(tx);
    await insertSubscriptionEvents(
      tx,
      [
        {
          webhookId,
          subscriptionId: subscription.id,
          type: TEST_EVENT_TYPE,
          txid: null,
          address: null,
          status: null,
          score,
          payload: {
            type: TEST_EVENT_TYPE,
            timestamp: now.toISOString(),
            data: { subscriptionId: subscription.id, score: score.toString() },
          },
          state: 'pending',
        },
      ],
      now,
    );
  });
  return webhookId;
}

/** Queues the event again from now; EventInDeliveryError while a deliverer is sending it. */
export async function redeliverEvent(db: Db, event: SubscriptionEventInfo, now: Date): Promise<void> {
  if (!(await redeliverSubscriptionEvent(db, event.id, now))) throw new EventInDeliveryError(event.webhookId);
}
