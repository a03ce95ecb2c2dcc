// A ticket's callbacks, for its owner (the API key that submitted it) and operators (admin):
// every event with each delivery attempt (GET /v2/ticket/{id}/deliveries), and a redelivery
// of the ticket's latest state (POST /v2/ticket/{id}/redeliver).
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { isUuid } from '../../crypto/random-id.js';
import { type DeliveryAttempt, deliveriesOfTicket } from '../../store/callbacks/callback-deliveries.js';
import { type TicketRecord, ticketById } from '../../store/tickets/ticket-queries.js';
import { redeliver } from '../../usecases/admin/redeliver-ticket.js';
import type { ServiceContext } from '../../usecases/context.js';
import type { AppInstance } from '../app.js';
import { AppError } from '../app-error.js';
import { principalOf } from '../plugins/auth.js';
import { authTokenQuery, problemResponses } from '../schemas/common.js';

export interface DeliveryRouteDeps {
  readonly ctx: Pick<ServiceContext, 'db' | 'now'>;
}

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const Time = Type.String({ format: 'date-time' });

const Attempt = Type.Object({
  at: Time,
  statusCode: Type.Union([Type.Integer(), Type.Null()], { description: 'HTTP status; null: no answer' }),
  latencyMs: Type.Integer(),
  error: Nullable(Type.String()),
});

const Event = Type.Object({
  webhookId: Type.String({ description: 'The webhook-id header: the same on every attempt' }),
  seq: Type.Integer({ description: 'Order of the event within the ticket' }),
  status: Nullable(Type.String({ description: 'Ticket status the event reports' })),
  state: Type.Enum(['pending', 'delivered', 'failed', 'dead']),
  attempts: Type.Integer(),
  nextAttemptAt: Nullable(Time),
  deliveredAt: Nullable(Time),
  lastError: Nullable(Type.String()),
  createdAt: Time,
  deliveries: Type.Array(Attempt),
});

const Deliveries = Type.Object({
  ticketId: Type.String(),
  callbackUrl: Nullable(Type.String()),
  events: Type.Array(Event),
});

const Redelivered = Type.Object({
  ticketId: Type.String(),
  webhookId: Type.String(),
  seq: Type.Integer(),
});

const params = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64, description: 'Ticket ID' }) });
const querystring = Type.Object(authTokenQuery);

export function deliveryRoutes(deps: DeliveryRouteDeps) {
  const { db } = deps.ctx;

  /** The ticket, if the caller's key submitted it or is an admin key. */
  async function ownTicket(request: FastifyRequest, id: string): Promise<TicketRecord> {
    const principal = principalOf(request);
    if (principal === null) {
      throw new AppError('UNAUTHORIZED', 'An API key is required to see the deliveries of a ticket');
    }
    if (!isUuid(id)) throw new AppError('INVALID_PARAMETER', `not a ticket ID: ${id}`);
    const ticket = await ticketById(db, id.toLowerCase());
    if (ticket === null) throw new AppError('NOT_FOUND', 'record not found');
    if (ticket.apiKeyId !== principal.id && !principal.scopes.includes('admin')) {
      throw new AppError('FORBIDDEN', 'the ticket was submitted with another API key');
    }
    return ticket;
  }

  return (app: AppInstance) => {
    app.get(
      '/v2/ticket/:id/deliveries',
      {
        config: { scope: 'read' },
        schema: {
          summary: "A ticket's callback events and their delivery attempts (owner key or admin)",
          params,
          querystring,
          response: { 200: Deliveries, ...problemResponses(400, 401, 403, 404) },
        },
      },
      async (request) => {
        const ticket = await ownTicket(request, request.params.id);
        const events = await deliveriesOfTicket(db, ticket.id);
        return {
          ticketId: ticket.id,
          callbackUrl: ticket.callbackUrl,
          events: events.map((e) => ({
            webhookId: e.webhookId,
            seq: e.seq,
            status: e.status,
            state: e.state,
            attempts: e.attempts,
            nextAttemptAt: e.nextAttemptAt?.toISOString() ?? null,
            deliveredAt: e.deliveredAt?.toISOString() ?? null,
            lastError: e.lastError,
            createdAt: e.createdAt.toISOString(),
            deliveries: e.deliveries.map(attemptJson),
          })),
        };
      },
    );

    app.post(
      '/v2/ticket/:id/redeliver',
      {
        config: { scope: 'submit' },
        schema: {
          summary: "Sends the ticket's latest state to its callback URL again (owner key or admin)",
          params,
          querystring,
          response: { 202: Redelivered, ...problemResponses(400, 401, 403, 404) },
        },
      },
      async (request, reply) => {
        const ticket = await ownTicket(request, request.params.id);
        const queued = await redeliver(deps.ctx, ticket.id);
        if (queued.kind === 'no-ticket') throw new AppError('NOT_FOUND', 'record not found');
        if (queued.kind === 'no-callback-url') {
          throw new AppError('INVALID_PARAMETER', `ticket ${ticket.id} has no callback_url`);
        }
        return reply.code(202).send({ ticketId: ticket.id, webhookId: queued.webhookId, seq: queued.seq });
      },
    );
  };
}

function attemptJson(a: DeliveryAttempt) {
  return { at: a.at.toISOString(), statusCode: a.statusCode, latencyMs: a.latencyMs, error: a.error };
}
