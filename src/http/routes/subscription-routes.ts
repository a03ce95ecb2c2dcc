// Address webhooks (issue 31, part 1): a key with the submit scope registers subscriptions (a
// URL checked against the SSRF guard, the event types, up to a bound of addresses), changes
// their address lists without registering again, reads their events (a replay list paged by
// score) with each delivery attempt, asks for a test event or a redelivery, and enables a
// subscription that was disabled for failing. A subscription is its key's alone (admin keys
// see every one). Events are made and delivered by the deliverer role (roles/deliverer.ts).
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  type CallbackAllowList,
  checkCallbackUrl,
  parseCallbackAllow,
  type Resolver,
} from '../../callbacks/address-guard.js';
import { isUuid } from '../../crypto/random-id.js';
import {
  attemptsOfEvent,
  type SubscriptionEventInfo,
  subscriptionEventByWebhookId,
  subscriptionEventPage,
} from '../../store/subscriptions/subscription-event-replay.js';
import {
  addressesOfSubscription,
  listSubscriptions,
  type SubscriptionRow,
  subscriptionById,
} from '../../store/subscriptions/subscriptions-store.js';
import { ADDRESS_EVENT_TYPES } from '../../usecases/subscriptions/address-event.js';
import {
  changeSubscription,
  changeSubscriptionAddresses,
  EventInDeliveryError,
  redeliverEvent,
  registerSubscription,
  removeSubscription,
  SubscriptionGoneError,
  SubscriptionLimitError,
  sendTestEvent,
} from '../../usecases/subscriptions/manage-subscriptions.js';
import type { AppInstance } from '../app.js';
import { AppError } from '../app-error.js';
import { principalOf } from '../plugins/auth.js';
import { authTokenQuery, Order, problemResponses } from '../schemas/common.js';
import {
  AddressCount,
  AddressList,
  addressChangeBody,
  CreatedSubscription,
  EventPage,
  EventQueued,
  EventWithDeliveries,
  Subscription,
  SubscriptionChangeBody,
  SubscriptionList,
  subscriptionBody,
} from '../schemas/subscription-schemas.js';
import { checkAddresses } from './address-list.js';
import type { RouteDeps } from './route-deps.js';

export interface SubscriptionRouteDeps extends RouteDeps {
  readonly callbackAllow?: CallbackAllowList;
  readonly resolveCallbackHost?: Resolver;
  readonly subscriptionMaxAddresses: number;
  readonly subscriptionsPerKey: number;
}

const params = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64, description: 'Subscription ID' }),
});
const eventParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64, description: 'Subscription ID' }),
  webhookId: Type.String({
    minLength: 1,
    maxLength: 100,
    pattern: '^[A-Za-z0-9_-]+$',
    description: 'The webhook-id of the event',
  }),
});
const querystring = Type.Object(authTokenQuery);
/** A list's page: an admin key's list holds every key's subscriptions, so it is paged. */
export const MAX_SUBSCRIPTIONS_PAGE = 500;
const listQuery = Type.Object({
  ...authTokenQuery,
  after: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'The `next` of the page before: the list goes on after it',
    }),
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_SUBSCRIPTIONS_PAGE,
      default: 100,
      description: 'Subscriptions a page',
    }),
  ),
});
const eventsQuery = Type.Object({
  from: Type.Optional(
    Type.String({
      pattern: '^[0-9]{1,19}$',
      description: 'A score, excluded: asc reads events above it, desc below it (0 or absent: the newest)',
    }),
  ),
  order: Type.Optional(Type.Enum(['asc', 'desc'], { ...Order, default: 'desc' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  ...authTokenQuery,
});

function subscriptionJson(s: SubscriptionRow) {
  return {
    id: s.id,
    url: s.url,
    events: [...s.events],
    description: s.description,
    addressCount: s.addressCount,
    enabled: s.enabled,
    disabledAt: s.disabledAt?.toISOString() ?? null,
    disabledReason: s.disabledReason,
    failingSince: s.failingSince?.toISOString() ?? null,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}

function eventJson(e: SubscriptionEventInfo) {
  return {
    webhookId: e.webhookId,
    type: e.type,
    score: e.score.toString(),
    state: e.state,
    attempts: e.attempts,
    nextAttemptAt: e.nextAttemptAt?.toISOString() ?? null,
    deliveredAt: e.deliveredAt?.toISOString() ?? null,
    lastError: e.lastError,
    createdAt: e.createdAt.toISOString(),
    payload: e.payload as never,
  };
}

export function subscriptionRoutes(deps: SubscriptionRouteDeps) {
  const { db } = deps.ctx;
  const allow = deps.callbackAllow ?? parseCallbackAllow([]);
  const limits = { maxAddresses: deps.subscriptionMaxAddresses, perKey: deps.subscriptionsPerKey };

  function keyOf(request: FastifyRequest): { id: string; admin: boolean } {
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
  async function own(request: FastifyRequest, id: string): Promise<SubscriptionRow> {
    const key = keyOf(request);
    if (!isUuid(id)) throw new AppError('INVALID_PARAMETER', `not a subscription ID: ${id}`);
    const found = await subscriptionById(db, id.toLowerCase());
    if (found === null || (found.apiKeyId !== key.id && !key.admin))
      throw new AppError('NOT_FOUND', 'no such subscription for this API key');
    return found;
  }

  async function checkedUrl(text: string): Promise<string> {
    const verdict = await checkCallbackUrl(text, allow, deps.resolveCallbackHost);
    if (!verdict.ok)
      throw new AppError('INVALID_CALLBACK_URL', verdict.reason.replace(/^callback_url/, 'url'));
    return verdict.url.toString();
  }

  /** Runs a write, answering its refusals: a limit passed (422), the subscription deleted meanwhile (404). */
  async function asProblems<T>(work: () => Promise<T>): Promise<T> {
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

  return (app: AppInstance) => {
    app.post(
      '/v2/subscriptions',
      {
        config: { scope: 'submit' },
        schema: {
          body: subscriptionBody(deps.subscriptionMaxAddresses),
          querystring,
          response: { 201: CreatedSubscription, ...problemResponses(400, 422) },
        },
      },
      async (request, reply) => {
        const key = keyOf(request);
        const url = await checkedUrl(request.body.url);
        const addresses = checkAddresses(request.body.addresses ?? []);
        const created = await asProblems(() =>
          registerSubscription(db, deps.masterKey, limits, {
            apiKeyId: key.id,
            url,
            events: request.body.events ?? [...ADDRESS_EVENT_TYPES],
            description: request.body.description ?? '',
            addresses,
            now: deps.ctx.now(),
          }),
        );
        reply.code(201);
        return { ...subscriptionJson(created.subscription), secret: created.secret };
      },
    );

    app.get(
      '/v2/subscriptions',
      {
        config: { scope: 'submit' },
        schema: {
          querystring: listQuery,
          response: { 200: SubscriptionList, ...problemResponses(400) },
        },
      },
      async (request) => {
        const key = keyOf(request);
        const { after, limit = 100 } = request.query;
        if (after !== undefined && !isUuid(after))
          throw new AppError('INVALID_PARAMETER', `not a subscription ID: ${after}`);
        const page = await listSubscriptions(db, {
          apiKeyId: key.admin ? null : key.id,
          after: after?.toLowerCase() ?? null,
          limit,
        });
        return {
          subscriptions: page.map(subscriptionJson),
          next: page.length === limit ? page[page.length - 1]!.id : null,
        };
      },
    );

    app.get(
      '/v2/subscriptions/:id',
      {
        config: { scope: 'submit' },
        schema: { params, querystring, response: { 200: Subscription, ...problemResponses(400, 404) } },
      },
      async (request) => subscriptionJson(await own(request, request.params.id)),
    );

    app.patch(
      '/v2/subscriptions/:id',
      {
        config: { scope: 'submit' },
        schema: {
          params,
          querystring,
          body: SubscriptionChangeBody,
          response: { 200: Subscription, ...problemResponses(400, 404) },
        },
      },
      async (request) => {
        const found = await own(request, request.params.id);
        const { url, events, description, enabled } = request.body;
        const checked = url === undefined ? undefined : await checkedUrl(url);
        const changed = await asProblems(() =>
          changeSubscription(db, found.id, {
            ...(checked !== undefined && { url: checked }),
            ...(events !== undefined && { events }),
            ...(description !== undefined && { description }),
            ...(enabled !== undefined && { enabled }),
            now: deps.ctx.now(),
          }),
        );
        return subscriptionJson(changed);
      },
    );

    app.delete(
      '/v2/subscriptions/:id',
      {
        config: { scope: 'submit' },
        schema: {
          params,
          querystring,
          response: {
            200: Type.Object(
              { id: Type.String(), deleted: Type.Boolean() },
              { examples: [{ id: 'x', deleted: true }] },
            ),
            ...problemResponses(400, 404),
          },
        },
      },
      async (request) => {
        const found = await own(request, request.params.id);
        await removeSubscription(db, found.id);
        return { id: found.id, deleted: true };
      },
    );

    app.get(
      '/v2/subscriptions/:id/addresses',
      {
        config: { scope: 'submit' },
        schema: { params, querystring, response: { 200: AddressList, ...problemResponses(400, 404) } },
      },
      async (request) => {
        const found = await own(request, request.params.id);
        const addresses = await addressesOfSubscription(db, found.id);
        return { subscriptionId: found.id, count: addresses.length, addresses };
      },
    );

    app.post(
      '/v2/subscriptions/:id/addresses',
      {
        config: { scope: 'submit' },
        schema: {
          params,
          querystring,
          body: addressChangeBody(deps.subscriptionMaxAddresses),
          response: { 200: AddressCount, ...problemResponses(400, 404, 422) },
        },
      },
      async (request) => {
        const found = await own(request, request.params.id);
        const { add, remove, replace } = request.body;
        const count = await asProblems(() =>
          changeSubscriptionAddresses(db, limits, found.id, {
            ...(add !== undefined && { add: checkAddresses(add) }),
            ...(remove !== undefined && { remove: checkAddresses(remove) }),
            ...(replace !== undefined && { replace: checkAddresses(replace) }),
          }),
        );
        return { subscriptionId: found.id, count };
      },
    );

    app.get(
      '/v2/subscriptions/:id/events',
      {
        config: { scope: 'submit' },
        schema: {
          params,
          querystring: eventsQuery,
          response: { 200: EventPage, ...problemResponses(400, 404) },
        },
      },
      async (request) => {
        const found = await own(request, request.params.id);
        const limit = request.query.limit ?? 100;
        const order = request.query.order ?? 'desc';
        const from = BigInt(request.query.from ?? '0');
        if (from > 2n ** 63n - 1n) throw new AppError('INVALID_PARAMETER', 'from is above the largest score');
        const events = await subscriptionEventPage(db, { subscriptionId: found.id, from, order, limit });
        const last = events.at(-1);
        return {
          subscriptionId: found.id,
          events: events.map(eventJson),
          nextScore: events.length >= limit && last !== undefined ? last.score.toString() : null,
        };
      },
    );

    app.get(
      '/v2/subscriptions/:id/events/:webhookId',
      {
        config: { scope: 'submit' },
        schema: {
          params: eventParams,
          querystring,
          response: { 200: EventWithDeliveries, ...problemResponses(400, 404) },
        },
      },
      async (request) => {
        const found = await own(request, request.params.id);
        const event = await subscriptionEventByWebhookId(db, found.id, request.params.webhookId);
        if (event === null) throw new AppError('NOT_FOUND', 'no such event of this subscription');
        const deliveries = await attemptsOfEvent(db, event.id);
        return {
          ...eventJson(event),
          deliveries: deliveries.map((d) => ({ ...d, at: d.at.toISOString() })),
        };
      },
    );

    app.post(
      '/v2/subscriptions/:id/events/:webhookId/redeliver',
      {
        config: { scope: 'submit' },
        schema: {
          params: eventParams,
          querystring,
          response: { 202: EventQueued, ...problemResponses(400, 404, 409) },
        },
      },
      async (request, reply) => {
        const found = await own(request, request.params.id);
        const event = await subscriptionEventByWebhookId(db, found.id, request.params.webhookId);
        if (event === null) throw new AppError('NOT_FOUND', 'no such event of this subscription');
        await asProblems(() => redeliverEvent(db, event, deps.ctx.now()));
        reply.code(202);
        return { subscriptionId: found.id, webhookId: event.webhookId };
      },
    );

    app.post(
      '/v2/subscriptions/:id/test',
      {
        config: { scope: 'submit' },
        schema: { params, querystring, response: { 202: EventQueued, ...problemResponses(400, 404) } },
      },
      async (request, reply) => {
        const found = await own(request, request.params.id);
        const webhookId = await asProblems(() => sendTestEvent(db, found, deps.ctx.now()));
        reply.code(202);
        return { subscriptionId: found.id, webhookId };
      },
    );
  };
}
