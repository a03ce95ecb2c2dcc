// Address webhooks (issue 31, part 1): a key with the submit scope registers subscriptions (a
// URL checked against the SSRF guard, the event types, up to a bound of addresses), lists and
// changes them, changes their address lists without registering again, and enables a
// subscription that was disabled for failing. Who may act on one: subscription-access.ts; its
// events (replay, redelivery, a test event): subscription-event-routes.ts.
import { Type } from 'typebox';
import {
  type CallbackAllowList,
  checkCallbackUrl,
  parseCallbackAllow,
  type Resolver,
} from '../../callbacks/address-guard.js';
import { isUuid } from '../../crypto/random-id.js';
import {
  addressesOfSubscription,
  listSubscriptions,
  type SubscriptionRow,
} from '../../store/subscriptions/subscriptions-store.js';
import { ADDRESS_EVENT_TYPES } from '../../usecases/subscriptions/address-event.js';
import {
  changeSubscription,
  changeSubscriptionAddresses,
  registerSubscription,
  removeSubscription,
} from '../../usecases/subscriptions/manage-subscriptions.js';
import type { AppInstance } from '../app.js';
import { AppError } from '../app-error.js';
import { authTokenQuery, problemResponses } from '../schemas/common.js';
import {
  AddressCount,
  AddressList,
  addressChangeBody,
  CreatedSubscription,
  Subscription,
  SubscriptionChangeBody,
  SubscriptionList,
  subscriptionBody,
} from '../schemas/subscription-schemas.js';
import { checkAddresses } from './address-list.js';
import type { RouteDeps } from './route-deps.js';
import {
  asSubscriptionProblems,
  ownSubscription,
  subscriptionKeyOf,
  subscriptionParams,
} from './subscription-access.js';

export interface SubscriptionRouteDeps extends RouteDeps {
  readonly callbackAllow?: CallbackAllowList;
  readonly resolveCallbackHost?: Resolver;
  readonly subscriptionMaxAddresses: number;
  readonly subscriptionsPerKey: number;
}

const querystring = Type.Object(authTokenQuery);
/** A list's page: an admin key's list holds every key's subscriptions, so it is paged. */
const MAX_SUBSCRIPTIONS_PAGE = 500;
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

export function subscriptionRoutes(deps: SubscriptionRouteDeps) {
  const { db } = deps.ctx;
  const allow = deps.callbackAllow ?? parseCallbackAllow([]);
  const limits = { maxAddresses: deps.subscriptionMaxAddresses, perKey: deps.subscriptionsPerKey };

  async function checkedUrl(text: string): Promise<string> {
    const verdict = await checkCallbackUrl(text, allow, deps.resolveCallbackHost);
    if (!verdict.ok)
      throw new AppError('INVALID_CALLBACK_URL', verdict.reason.replace(/^callback_url/, 'url'));
    return verdict.url.toString();
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
        const key = subscriptionKeyOf(request);
        const url = await checkedUrl(request.body.url);
        const addresses = checkAddresses(request.body.addresses ?? []);
        const created = await asSubscriptionProblems(() =>
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
        const key = subscriptionKeyOf(request);
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
        schema: {
          params: subscriptionParams,
          querystring,
          response: { 200: Subscription, ...problemResponses(400, 404) },
        },
      },
      async (request) => subscriptionJson(await ownSubscription(db, request, request.params.id)),
    );

    app.patch(
      '/v2/subscriptions/:id',
      {
        config: { scope: 'submit' },
        schema: {
          params: subscriptionParams,
          querystring,
          body: SubscriptionChangeBody,
          response: { 200: Subscription, ...problemResponses(400, 404) },
        },
      },
      async (request) => {
        const found = await ownSubscription(db, request, request.params.id);
        const { url, events, description, enabled } = request.body;
        const checked = url === undefined ? undefined : await checkedUrl(url);
        const changed = await asSubscriptionProblems(() =>
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
          params: subscriptionParams,
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
        const found = await ownSubscription(db, request, request.params.id);
        await removeSubscription(db, found.id);
        return { id: found.id, deleted: true };
      },
    );

    app.get(
      '/v2/subscriptions/:id/addresses',
      {
        config: { scope: 'submit' },
        schema: {
          params: subscriptionParams,
          querystring,
          response: { 200: AddressList, ...problemResponses(400, 404) },
        },
      },
      async (request) => {
        const found = await ownSubscription(db, request, request.params.id);
        const addresses = await addressesOfSubscription(db, found.id);
        return { subscriptionId: found.id, count: addresses.length, addresses };
      },
    );

    app.post(
      '/v2/subscriptions/:id/addresses',
      {
        config: { scope: 'submit' },
        schema: {
          params: subscriptionParams,
          querystring,
          body: addressChangeBody(deps.subscriptionMaxAddresses),
          response: { 200: AddressCount, ...problemResponses(400, 404, 422) },
        },
      },
      async (request) => {
        const found = await ownSubscription(db, request, request.params.id);
        const { add, remove, replace } = request.body;
        const count = await asSubscriptionProblems(() =>
          changeSubscriptionAddresses(db, limits, found.id, {
            ...(add !== undefined && { add: checkAddresses(add) }),
            ...(remove !== undefined && { remove: checkAddresses(remove) }),
            ...(replace !== undefined && { replace: checkAddresses(replace) }),
          }),
        );
        return { subscriptionId: found.id, count };
      },
    );
  };
}
