// Submitting transfers (v2: the ticket ID once its batch has committed, broadcasting going on;
// v1: waits for the network's answer) and reading tickets. Broadcasting is the use case's.
import { type Static, Type } from 'typebox';
import {
  type CallbackAllowList,
  checkCallbackUrl,
  parseCallbackAllow,
  type Resolver,
} from '../../callbacks/address-guard.js';
import { isUuid } from '../../crypto/random-id.js';
import { seal } from '../../crypto/secret-box.js';
import { maySeeCallbackUrl, ticketJson } from '../../domain/ticket.js';
import { batchedTicketReader } from '../../store/wallets/read-batches.js';
import { minedTicketProof } from '../../usecases/spv/ticket-proof.js';
import { submitTransfer } from '../../usecases/submit/submit-transfer.js';
import type { AppInstance } from '../app.js';
import { AppError } from '../app-error.js';
import { principalOf, submitterIdOf } from '../plugins/auth.js';
import { idempotencyHooks } from '../plugins/idempotency.js';
import { authTokenQuery, problemResponses } from '../schemas/common.js';
import { okRef } from '../schemas/responses.js';
import type { RouteDeps } from './route-deps.js';
import { base64 } from './wire.js';

/** The longest callback URL kept, as given and once normalised (the writer's bound too). */
export const MAX_CALLBACK_URL = 2_048;

const TransferBody = Type.Object({
  rawtx: Type.String({ minLength: 1, maxLength: 300_000, description: 'Signed raw transaction, base64' }),
  callback_url: Type.Optional(Type.String({ maxLength: MAX_CALLBACK_URL })),
  callback_secret: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
});

/**
 * POST /v2/transfer answers the ticket ID as JSON, what a client generated from this document
 * parses; the published clients read it as text (answersAsText).
 */
const TicketAnswer = {
  description:
    'The ticket ID, as JSON. As text/plain (the bare ID) to callers that send their key as `auth_token` ' +
    '(the published clients read it so) or ask for it with Accept: text/plain.',
  content: {
    'application/json': { schema: Type.Ref('TicketId') },
    'text/plain': {
      schema: Type.String({ format: 'uuid', examples: ['3f1c7a0e-8a52-4c8e-9d0b-6f1e2a3b4c5d'] }),
    },
  },
};

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export interface TransferRouteDeps extends RouteDeps {
  /** Private targets the operator allows as callback URLs (default: none). */
  readonly callbackAllow?: CallbackAllowList;
  /** Resolves callback hosts (default: the system resolver). */
  readonly resolveCallbackHost?: Resolver;
}

export function transferRoutes(deps: TransferRouteDeps) {
  const { ctx } = deps;
  const callbackAllow = deps.callbackAllow ?? parseCallbackAllow([]);
  const idempotent = idempotencyHooks(ctx.db, ctx.now);
  const ticketById = batchedTicketReader(ctx.db);

  async function accept(body: Static<typeof TransferBody>, apiKeyId: string | null, requestId: string) {
    if (!BASE64.test(body.rawtx)) throw new AppError('INVALID_TX', 'rawtx is not base64');
    const callbackUrl =
      body.callback_url === undefined || body.callback_url === ''
        ? null
        : await callbackUrlOf(body.callback_url, callbackAllow, deps.resolveCallbackHost);
    // A secret signs callbacks: without a URL there is nothing to sign, and it is not kept (the
    // writer refuses a secret without a URL).
    const secret =
      body.callback_secret === undefined || callbackUrl === null
        ? null
        : seal(deps.masterKey, body.callback_secret);
    return submitTransfer(ctx, {
      raw: new Uint8Array(Buffer.from(body.rawtx, 'base64')),
      callbackUrl,
      callbackSecretEnc: secret,
      apiKeyId,
      requestId,
    });
  }

  return (app: AppInstance) => {
    app.post(
      '/v2/transfer',
      {
        config: { scope: 'submit' },
        schema: {
          body: TransferBody,
          querystring: Type.Object(authTokenQuery),
          response: { 200: TicketAnswer, ...problemResponses(400, 422, 503) },
        },
        ...idempotent,
      },
      async (request, reply) => {
        const { ticketId } = await accept(request.body, submitterIdOf(principalOf(request)), request.id);
        if (answersAsText(request.headers.accept, 'auth_token' in request.query)) {
          return reply.type('text/plain; charset=utf-8').send(ticketId);
        }
        return reply.type('application/json').send({ ticketId });
      },
    );

    app.post(
      '/v1/transfer',
      {
        config: { scope: 'submit', deprecatedBy: '/v2/transfer' },
        schema: {
          body: TransferBody,
          querystring: Type.Object(authTokenQuery),
          response: {
            200: okRef('RawTx', 'The cosigned transaction, once the ledger took it'),
            ...problemResponses(400, 422, 503),
          },
        },
        ...idempotent,
      },
      async (request) => {
        const submitted = await accept(request.body, submitterIdOf(principalOf(request)), request.id);
        const outcome = await submitted.broadcast;
        if (outcome.kind === 'rejected') throw new AppError('BROADCAST_REJECTED', outcome.reason);
        if (outcome.kind === 'unavailable') {
          throw new AppError(
            'LEDGER_UNAVAILABLE',
            `the ledger did not answer; ticket ${submitted.ticketId} will be broadcast again`,
          );
        }
        return { rawtx: base64(submitted.rawTx) };
      },
    );

    app.get(
      '/v2/ticket',
      {
        config: { scope: 'read' },
        schema: {
          querystring: Type.Object({
            ...authTokenQuery,
            ticketID: Type.String({ minLength: 1, maxLength: 64 }),
          }),
          response: { 200: okRef('Ticket', 'The ticket'), ...problemResponses(400, 404) },
        },
      },
      async (request) => {
        const { ticketID } = request.query;
        if (!isUuid(ticketID))
          throw new AppError('INVALID_PARAMETER', `ticketID is not a ticket ID: ${ticketID}`);
        const ticket = await ticketById(ticketID.toLowerCase());
        if (ticket === null) throw new AppError('NOT_FOUND', 'record not found');
        const whole = maySeeCallbackUrl(ticket.apiKeyId, principalOf(request));
        const json = ticketJson(ticket, { callbackUrl: whole ? 'whole' : 'redacted' });
        // A MINED ticket carries its transaction's merkle path (BUMP), as ARC's MINED status does.
        const merklePath = ticket.status === 'MINED' ? await minedTicketProof(ctx, ticket.txid) : null;
        return merklePath === null ? json : { ...json, merklePath };
      },
    );
  };
}

/**
 * Whether POST /v2/transfer answers the bare ticket ID as text. An Accept that names one of the
 * two types decides. Otherwise (none, or * / *, as fetch sends) the published clients, which
 * send their key as `auth_token` (@mnee/ts-sdk, go-mnee-1sat-sdk), read the answer as text, and
 * every other caller, a client generated from the OpenAPI document among them (openapi-fetch
 * parses an answer as JSON unless told otherwise), gets JSON.
 */
export function answersAsText(accept: string | undefined, keyInQuery: boolean): boolean {
  const json = accept !== undefined && /application\/json/i.test(accept);
  const text = accept !== undefined && /text\/plain/i.test(accept);
  if (json !== text) return text;
  return keyInQuery;
}

/** A URL the service may call (src/callbacks/address-guard.ts), or a 400. */
async function callbackUrlOf(text: string, allow: CallbackAllowList, resolve?: Resolver): Promise<string> {
  // Normalising percent-encodes what was not (an 'é' becomes '%C3%A9'): the stored form is bound,
  // and judged before any lookup of its host.
  const normalised = URL.canParse(text) ? new URL(text).href.length : 0;
  if (normalised > MAX_CALLBACK_URL)
    throw new AppError(
      'INVALID_CALLBACK_URL',
      `callback_url is ${normalised} characters once normalised, more than ${MAX_CALLBACK_URL}`,
    );
  const verdict = await checkCallbackUrl(text, allow, resolve);
  if (!verdict.ok) throw new AppError('INVALID_CALLBACK_URL', verdict.reason);
  return verdict.url.href;
}
