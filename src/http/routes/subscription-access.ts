// Who may act on an address webhook subscription, and how its use cases' refusals are answered:
// shared by the subscription routes and their events' routes. A subscription is its key's alone
// (admin keys see every one); the sandbox's shared public token owns none.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { isUuid } from '../../crypto/random-id.js';
import type { Queryable } from '../../store/db/db.js';
import { type SubscriptionRow, subscriptionById } from '../../store/subscriptions/subscriptions-store.js';
import {
  EventInDeliveryError,
  SubscriptionGoneError,
  SubscriptionLimitError,
} from '../../usecases/subscriptions/manage-subscriptions.js';
import { AppError } from '../app-error.js';
import { principalOf } from '../plugins/auth.js';

/** The `:id` of a subscription's routes. */
export const subscriptionParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64, description: 'Subscription ID' }),
});

export function subscriptionKeyOf(request: FastifyRequest): { id: string; admin: boolean } {
  const principal = principalOf(request);
  if (principal === null)
    throw new AppError('UNAUTHORIZED', 'an API key with the submit scope is required for address webhooks');
  // The sandbox's public token is everyone's: what it registered every holder could read,
  // re-point and delete, so it owns no subscription.
  if (principal.shared === true)
    throw new AppError(
      'FORBIDDEN',
      'address webhooks need an API key of your own: the public sandbox token is shared by everyone',
    );
  return { id: principal.id, admin: principal.scopes.includes('admin') };
}

/** The subscription, if the caller's key registered it or is an admin key. */
export async function ownSubscription(
  db: Queryable,
  request: FastifyRequest,
  id: string,
): Promise<SubscriptionRow> {
  const key = subscriptionKeyOf(request);
  if (!isUuid(id)) throw new AppError('INVALID_PARAMETER', `not a subscription ID: ${id}`);
  const found = await subscriptionById(db, id.toLowerCase());
  if (found === null || (found.apiKeyId !== key.id && !key.admin))
    throw new AppError('NOT_FOUND', 'no such subscription for this API key');
  return found;
}

/** Runs a write, answering its refusals: a limit passed (422), the subscription deleted meanwhile (404). */
export async function asSubscriptionProblems<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof SubscriptionLimitError) throw new AppError('SUBSCRIPTION_LIMIT', err.message);
    if (err instanceof SubscriptionGoneError)
      throw new AppError('NOT_FOUND', 'no such subscription for this API key');
    if (err instanceof EventInDeliveryError) throw new AppError('EVENT_IN_DELIVERY', err.message);
    throw err;
  }
}
