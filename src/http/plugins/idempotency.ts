// Idempotency-Key on the submitting routes (contract.md, Transfer): a retried request with the
// same key (per API key) and the same request gets the first answer again (status, body, content
// type), marked `Idempotent-Replayed: true`; the same key with another request is a 422
// IDEMPOTENCY_CONFLICT. Only successes the route handler answered are kept: a 5xx (the ledger
// down, the funding pool empty) is not final and a 4xx refusal is not worth keeping, so a retry
// of either runs again. One API key keeps at most MAX_KEPT_PER_KEY answers at once.
// Requests refused before the handler (auth, schema, body size) keep nothing.
//
// Wiring: spread `idempotencyHooks(db)` into a route's options (`preHandler`, `onSend`). A route
// whose handler builds a transaction of its own (admin mint, burn) also hands the use case
// `preparedUnder(db, request)`: the answer is kept only after the work, so a process killed in
// between keeps none, and the transaction kept before submitting is what makes the retry safe.
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  ANONYMOUS_API_KEY_ID,
  type IdempotencyScope,
  type IdempotentResponse,
  recall,
  remember,
  requestHashOf,
} from '../../store/access/idempotency-store.js';
import type { Queryable } from '../../store/db/db.js';
import { preparedUnderKey } from '../../usecases/supply/prepared-under-key.js';
import type { PreparedTransaction } from '../../usecases/supply/send-from-held-address.js';
import { AppError } from '../app-error.js';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
export const IDEMPOTENT_REPLAYED_HEADER = 'idempotent-replayed';
const MAX_KEY_LENGTH = 255;

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the preHandler when the request carries an Idempotency-Key to keep the answer under. */
    idempotency?: IdempotencyScope;
    /** This request's hold on its key in this process (idempotencyHooks). */
    idempotencyHold?: { readonly id: string; readonly done: Promise<void>; readonly release: () => void };
  }
}

/**
 * The key of an Idempotency-Key header value: 1 to 255 printable ASCII characters, optionally
 * written as a structured-field string (`"key"`, as the IETF draft has it). Undefined when absent;
 * throws a 400 when present but unusable.
 */
export function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (Array.isArray(header)) {
    throw new AppError('INVALID_REQUEST', 'Idempotency-Key must be given once');
  }
  const trimmed = header.trim();
  const key =
    trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"') ? trimmed.slice(1, -1) : trimmed;
  if (key.length === 0 || key.length > MAX_KEY_LENGTH || !/^[\x20-\x7e]+$/.test(key) || key.includes('"')) {
    throw new AppError(
      'INVALID_REQUEST',
      `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} printable ASCII characters`,
    );
  }
  return key;
}

/** What makes two requests under one key the same: method, route and the parsed JSON body. */
export function idempotencyRequestHash(request: FastifyRequest): Uint8Array {
  const route = request.routeOptions.url ?? request.url.split('?')[0] ?? '';
  return requestHashOf([request.method, route, JSON.stringify(request.body ?? null)]);
}

/**
 * Whether an answer is kept to be replayed: a success only. A server-side failure is not final;
 * a refusal (4xx) is not kept either (issue 29: a fresh key per refused transfer filled the store),
 * so a retry of a refused request runs again and is refused again, or passes if what refused it
 * has changed.
 */
export function keepsAnswer(status: number): boolean {
  return status < 400;
}

function replay(reply: FastifyReply, answer: IdempotentResponse): FastifyReply {
  return reply
    .code(answer.status)
    .header(IDEMPOTENT_REPLAYED_HEADER, 'true')
    .type(answer.contentType)
    .serializer(String) // the kept text goes out as it was, content type untouched
    .send(answer.body);
}

function conflict(key: string): AppError {
  return new AppError(
    'IDEMPOTENCY_CONFLICT',
    `Idempotency-Key ${key} was already used with another request; use a new key for a new request`,
  );
}

function payloadText(payload: unknown): string | null {
  if (typeof payload === 'string') return payload;
  if (Buffer.isBuffer(payload)) return payload.toString('utf8');
  return null;
}

/** How long a request waits for an earlier one with the same key, in this process, to answer. */
const WAIT_FOR_EARLIER_MS = 60_000;

interface Hold {
  readonly id: string;
  readonly done: Promise<void>;
  readonly release: () => void;
}

function newHold(id: string): Hold {
  let release = () => {};
  const done = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { id, done, release };
}

/**
 * Route hooks implementing Idempotency-Key over the store (idempotency-store.ts). Within one
 * process, requests with the same key run one after the other, so a retry sent while the first
 * request is still running (v1 waits for the network) waits for it and gets its answer. Across
 * processes the store decides: the first answer kept wins.
 */
export function idempotencyHooks(db: Queryable, now: () => Date = () => new Date()) {
  const running = new Map<string, Hold>();

  /** Waits while another request holds the key; false when it waited too long. */
  async function waitForEarlier(id: string, deadline: number): Promise<boolean> {
    for (let earlier = running.get(id); earlier !== undefined; earlier = running.get(id)) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([earlier.done, new Promise<void>((r) => (timer = setTimeout(r, left)))]);
      clearTimeout(timer);
    }
    return true;
  }

  /** Lets the next request with this key in (its answer is kept by now, or never will be). */
  function release(request: FastifyRequest): void {
    const hold = request.idempotencyHold;
    if (hold === undefined) return;
    request.idempotencyHold = undefined;
    if (running.get(hold.id) === hold) running.delete(hold.id);
    hold.release();
  }

  return {
    async preHandler(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
      const key = idempotencyKeyOf(request.headers[IDEMPOTENCY_KEY_HEADER]);
      if (key === undefined) return undefined;
      // The sandbox's public token is everyone's: under it one wallet's key would answer, or
      // refuse, another's request. Its requests keep no answer; a transfer sent again still
      // finds its ticket by its txid.
      if (request.principal?.shared === true) return undefined;
      const scope: IdempotencyScope = {
        apiKeyId: request.principal?.id ?? ANONYMOUS_API_KEY_ID,
        key,
        requestHash: idempotencyRequestHash(request),
      };
      const id = `${scope.apiKeyId}\n${key}`;
      const deadline = Date.now() + WAIT_FOR_EARLIER_MS;
      for (;;) {
        const inTime = await waitForEarlier(id, deadline);
        const kept = await recall(db, scope);
        if (kept === 'conflict') throw conflict(key);
        if (kept !== null) return replay(reply, kept);
        if (!running.has(id) || !inTime) break;
      }
      const hold = newHold(id);
      if (!running.has(id)) running.set(id, hold);
      request.idempotency = scope;
      request.idempotencyHold = hold;
      return undefined;
    },

    async onSend(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
      const scope = request.idempotency;
      if (scope === undefined) return payload;
      request.idempotency = undefined;
      try {
        const body = payloadText(payload);
        if (body === null || !keepsAnswer(reply.statusCode)) return payload;
        const contentType = String(reply.getHeader('content-type') ?? 'application/octet-stream');
        const kept = await remember(db, { ...scope, status: reply.statusCode, body, contentType }, now());
        if (kept === 'conflict') {
          // Another process kept an answer for this key and another request first.
          request.log.warn({ key: scope.key }, 'Idempotency-Key raced with another request');
          return payload;
        }
        if (kept.body !== body || kept.status !== reply.statusCode) {
          // Another process kept the answer to this same request first: answer what it answered.
          reply.code(kept.status).type(kept.contentType).header(IDEMPOTENT_REPLAYED_HEADER, 'true');
          return kept.body;
        }
        return payload;
      } finally {
        release(request);
      }
    },

    /** Releases the key when no answer could be sent. */
    async onResponse(request: FastifyRequest): Promise<void> {
      release(request);
    },

    /** The client went away: a retry need not wait (the answer is still kept when it comes). */
    async onRequestAbort(request: FastifyRequest): Promise<void> {
      release(request);
    },
  };
}

/**
 * Where the use case keeps the transaction it builds under this request's Idempotency-Key, and
 * finds an earlier attempt's (migration 016); undefined without a key.
 */
export function preparedUnder(
  db: Queryable,
  request: FastifyRequest,
  now: () => Date = () => new Date(),
): PreparedTransaction | undefined {
  const scope = request.idempotency;
  if (scope === undefined) return undefined;
  return preparedUnderKey(db, scope, now, (kept) => {
    if (kept === 'conflict') throw conflict(scope.key);
    return kept;
  });
}
