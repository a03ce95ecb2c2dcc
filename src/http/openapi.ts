// The OpenAPI 3.1 document (@fastify/swagger, built from the route schemas) at /openapi.json.
// Each operation gets its operationId and tag (operations.ts, in a wallet developer's reading
// order), its scope (`x-scope`), security, deprecation, the problems it can answer by status
// with their codes, and its headers (Idempotency-Key, RateLimit, Deprecation, X-Request-Id).
// `servers` is the public base URL when configured. The interactive reference is at /docs
// (docs-ui.ts).
import swagger from '@fastify/swagger';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import { ERRORS, type ErrorCode } from './error-statuses.js';
import { operationDoc } from './operation-docs.js';
import { fallbackOperationId, fallbackTag, OPERATIONS, TAGS } from './operations.js';
import type { RouteScope } from './plugins/auth.js';
import { IDEMPOTENCY_KEY_HEADER } from './plugins/idempotency.js';
import { PROBLEM_CONTENT_TYPE } from './problem.js';
import { problemExample } from './problem-examples.js';
import { problemResponse } from './schemas/common.js';

export interface OpenApiOptions {
  readonly version: string;
  readonly anonymousRead: boolean;
  readonly publicBaseUrl?: string | undefined;
}

const KEYED: Array<Record<string, string[]>> = [{ authToken: [] }, { bearerAuth: [] }];

function securityOf(scope: RouteScope | undefined, anonymousRead: boolean): Array<Record<string, string[]>> {
  if (scope === 'public') return [];
  if (scope === 'read' && anonymousRead) return [{}, ...KEYED];
  return KEYED;
}

const HEADER = {
  requestId: {
    type: 'string',
    description: 'The request ID (the inbound X-Request-Id when sane): quote it in reports',
  },
  rateLimit: {
    type: 'string',
    description: 'Remaining quota: "<policy>";r=<remaining>;t=<reset s> (IETF RateLimit draft)',
  },
  rateLimitPolicy: { type: 'string', description: 'The quota: "<policy>";q=<quota>;w=<window s>' },
  retryAfter: { type: 'integer', description: 'Seconds to wait before retrying' },
  deprecation: { type: 'string', enum: ['true'], description: 'This operation is deprecated' },
  link: { type: 'string', description: '<successor>; rel="successor-version"' },
  replayed: { type: 'string', enum: ['true'], description: 'The answer kept under this Idempotency-Key' },
};

/** `/v2/txos/:outpoint` -> `/v2/txos/{outpoint}`. */
export function openApiPath(url: string): string {
  return url.replace(/:(\w+)/g, '{$1}');
}

/** The problems an operation can answer, by status: its own codes and the frame's. */
export function problemCodes(
  scope: RouteScope | undefined,
  schema: FastifySchema | undefined,
  own: readonly ErrorCode[],
): Map<number, ErrorCode[]> {
  const codes: ErrorCode[] = [...own];
  const hasBody = schema?.body !== undefined;
  if (hasBody) codes.push('INVALID_JSON', 'INVALID_REQUEST', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE');
  if (schema?.querystring !== undefined || schema?.params !== undefined) {
    codes.push('INVALID_REQUEST', 'INVALID_PARAMETER');
  }
  if (scope !== 'public') codes.push('UNAUTHORIZED', 'FORBIDDEN', 'RATE_LIMITED', 'NOT_READY');
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERRORS[code].status;
    const list = byStatus.get(status) ?? [];
    if (!list.includes(code)) list.push(code);
    byStatus.set(status, list);
  }
  return byStatus;
}

function problemEntry(status: number, codes: readonly ErrorCode[]): Record<string, unknown> {
  const schema = {
    allOf: [{ $ref: 'Problem' }, { type: 'object', properties: { code: { enum: [...codes] } } }],
  };
  return {
    description: codes.map((c) => `${c}: ${ERRORS[c].title}`).join('; '),
    // The status's own example: without it every status shows the Problem schema's one.
    content: { [PROBLEM_CONTENT_TYPE]: { schema, example: problemExample(codes[0]!) } },
    headers: {
      'x-request-id': HEADER.requestId,
      ...(status === 429 || status === 503 ? { 'retry-after': HEADER.retryAfter } : {}),
    },
  };
}

function isProblemEntry(entry: unknown): boolean {
  const content = (entry as { content?: Record<string, unknown> } | undefined)?.content;
  return content !== undefined && content[PROBLEM_CONTENT_TYPE] !== undefined;
}

/** Adds operationId, tag, scope, security, deprecation, problems and headers to an operation. */
export function describeOperation(
  schema: FastifySchema | undefined,
  route: Pick<RouteOptions, 'config'> & Partial<Pick<RouteOptions, 'method' | 'url'>>,
  anonymousRead: boolean,
): FastifySchema {
  const config = (route.config ?? {}) as {
    scope?: RouteScope;
    scopeInHandler?: RouteScope;
    deprecatedBy?: string;
  };
  // What the caller must present: the frame's scope, or the one a public route's handler asks for.
  const scope = config.scopeInHandler ?? config.scope;
  const method = String(
    Array.isArray(route.method) ? route.method[0] : (route.method ?? 'GET'),
  ).toUpperCase();
  const path = openApiPath(route.url ?? '');
  const facts = OPERATIONS[`${method} ${path}`];
  const keyed = scope !== 'public';
  const successHeaders: Record<string, unknown> = {
    'x-request-id': HEADER.requestId,
    ...(keyed ? { ratelimit: HEADER.rateLimit, 'ratelimit-policy': HEADER.rateLimitPolicy } : {}),
    ...(config.deprecatedBy !== undefined ? { deprecation: HEADER.deprecation, link: HEADER.link } : {}),
    ...(facts?.idempotent === true ? { 'idempotent-replayed': HEADER.replayed } : {}),
  };
  const response: Record<string, unknown> = {};
  for (const [status, entry] of Object.entries(
    (schema?.response as Record<string, unknown> | undefined) ?? {},
  )) {
    response[status] =
      /^2/.test(status) && !isProblemEntry(entry) ? { ...(entry as object), headers: successHeaders } : entry;
  }
  if (facts?.text !== undefined && !Object.keys(response).some((status) => /^2/.test(status))) {
    response['200'] = {
      description: facts.text,
      content: { 'text/plain': { schema: { type: 'string' } } },
      headers: successHeaders,
    };
  }
  for (const [status, codes] of problemCodes(scope, schema, facts?.errors ?? [])) {
    response[status] = problemEntry(status, codes);
  }
  if (response.default === undefined) response.default = problemResponse('Error: problem details');
  const described: Record<string, unknown> = {
    ...(schema ?? {}),
    ...operationDoc(method, path, schema as { summary?: unknown; description?: unknown } | undefined),
    operationId: facts?.id ?? fallbackOperationId(method, path),
    tags: [facts?.tag ?? fallbackTag(path)],
    response,
    security: securityOf(scope, anonymousRead),
    'x-scope': scope ?? 'admin',
  };
  if (facts?.idempotent === true) {
    described.headers = {
      type: 'object',
      properties: {
        [IDEMPOTENCY_KEY_HEADER]: {
          type: 'string',
          minLength: 1,
          maxLength: 255,
          description:
            'Retry safely: a repeated request with the same key gets the first answer (Idempotent-Replayed: true); the same key with another body is a 422.',
        },
      },
    };
  }
  if (config.deprecatedBy !== undefined) {
    described.deprecated = true;
    described['x-successor'] = config.deprecatedBy;
  }
  return described as FastifySchema;
}

/** Registers @fastify/swagger; call before any route is registered. */
export function registerOpenApi(app: FastifyInstance, options: OpenApiOptions): void {
  app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'tokenproxy',
        version: options.version,
        description:
          'Token ledger proxy for a cosigned BSV-21 token. Send an API key as `auth_token` in the query or ' +
          '`Authorization: Bearer <key>` (reads may need none). Errors are RFC 9457 problem details ' +
          '(application/problem+json) with a stable `code` (docs/errors.md).',
      },
      servers: [{ url: options.publicBaseUrl ?? '/' }],
      tags: TAGS.map((tag) => ({ ...tag })),
      components: {
        securitySchemes: {
          authToken: { type: 'apiKey', in: 'query', name: 'auth_token' },
          bearerAuth: { type: 'http', scheme: 'bearer' },
        },
      },
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
    transform: ({ schema, url, route }) => ({
      schema: describeOperation(schema, route, options.anonymousRead),
      url,
    }),
  });
}

/** The /openapi.json route (hidden from the document itself). */
export async function openApiRoutes(app: FastifyInstance): Promise<void> {
  app.get('/openapi.json', { schema: { hide: true }, config: { scope: 'public' } }, async () =>
    app.swagger(),
  );
}
