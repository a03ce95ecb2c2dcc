// An address webhook subscription's events, for its owner: the replay list paged by score, one
// event with each delivery attempt, a redelivery, and a test event. Events are made and
// delivered by the deliverer role (roles/deliverer.ts).
import { Type } from 'typebox';
import { MAX_SCORE } from '../../domain/index-bounds.js';
import {
  attemptsOfEvent,
  type SubscriptionEventInfo,
  subscriptionEventByWebhookId,
  subscriptionEventPage,
} from '../../store/subscriptions/subscription-event-replay.js';
import { redeliverEvent, sendTestEvent } from '../../usecases/subscriptions/manage-subscriptions.js';
import type { AppInstance } from '../app.js';
import { AppError } from '../app-error.js';
import { authTokenQuery, Order, problemResponses } from '../schemas/common.js';
import { EventPage, EventQueued, EventWithDeliveries } from '../schemas/subscription-schemas.js';
import type { RouteDeps } from './route-deps.js';
import { asSubscriptionProblems, ownSubscription, subscriptionParams } from './subscription-access.js';

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

export function subscriptionEventRoutes(deps: RouteDeps) {
  const { db } = deps.ctx;
  return (app: AppInstance) => {
    app.get(
      '/v2/subscriptions/:id/events',
      {
        config: { scope: 'submit' },
        schema: {
          params: subscriptionParams,
          querystring: eventsQuery,
          response: { 200: EventPage, ...problemResponses(400, 404) },
        },
      },
      async (request) => {
        const found = await ownSubscription(db, request, request.params.id);
        const limit = request.query.limit ?? 100;
        const order = request.query.order ?? 'desc';
        const from = BigInt(request.query.from ?? '0');
        if (from > MAX_SCORE) throw new AppError('INVALID_PARAMETER', 'from is above the largest score');
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
        const found = await ownSubscription(db, request, request.params.id);
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
        const found = await ownSubscription(db, request, request.params.id);
        const event = await subscriptionEventByWebhookId(db, found.id, request.params.webhookId);
        if (event === null) throw new AppError('NOT_FOUND', 'no such event of this subscription');
        await asSubscriptionProblems(() => redeliverEvent(db, event, deps.ctx.now()));
        reply.code(202);
        return { subscriptionId: found.id, webhookId: event.webhookId };
      },
    );

    app.post(
      '/v2/subscriptions/:id/test',
      {
        config: { scope: 'submit' },
        schema: {
          params: subscriptionParams,
          querystring,
          response: { 202: EventQueued, ...problemResponses(400, 404) },
        },
      },
      async (request, reply) => {
        const found = await ownSubscription(db, request, request.params.id);
        const webhookId = await asSubscriptionProblems(() => sendTestEvent(db, found, deps.ctx.now()));
        reply.code(202);
        return { subscriptionId: found.id, webhookId };
      },
    );
  };
}
