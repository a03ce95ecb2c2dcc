// Request IDs: an inbound `x-request-id` is honoured when sane (1-128 visible ASCII
// characters), otherwise one is generated. The ID is returned in the response header and
// carried by every log line of the request (label `requestId`).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

export const REQUEST_ID_HEADER = 'x-request-id';
export const REQUEST_ID_LOG_LABEL = 'requestId';

const SANE = /^[\x21-\x7e]{1,128}$/;

export function isSaneRequestId(value: unknown): value is string {
  return typeof value === 'string' && SANE.test(value);
}

/** Fastify `genReqId`: the inbound header when sane, else a fresh UUID. */
export function requestIdGenerator(generate: () => string = randomUUID) {
  return (req: IncomingMessage): string => {
    const inbound = req.headers[REQUEST_ID_HEADER];
    return isSaneRequestId(inbound) ? inbound : generate();
  };
}

/** Echoes the request ID on every response, errors and 404s included. */
export function installRequestIdHeader(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    return payload;
  });
}
