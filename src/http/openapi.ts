// The OpenAPI 3.1 document (@fastify/swagger, built from the route schemas) at
// /openapi.json, and a self-contained docs page at /docs that lists its operations.
// Each operation states its scope (`x-scope`), security and deprecation from route config.
import swagger from '@fastify/swagger';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import type { RouteScope } from './auth.js';
import { renderDocsPage } from './docs-page.js';
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

/** Adds scope, security, deprecation and the problem response to an operation. */
export function describeOperation(
  schema: FastifySchema | undefined,
  route: Pick<RouteOptions, 'config'>,
  anonymousRead: boolean,
): FastifySchema {
  const config = (route.config ?? {}) as { scope?: RouteScope; deprecatedBy?: string };
  const response = { ...((schema?.response as Record<string, unknown> | undefined) ?? {}) };
  if (response.default === undefined && response['4xx'] === undefined) {
    response.default = problemResponse('Error: problem details');
  }
  const described: Record<string, unknown> = {
    ...(schema ?? {}),
    response,
    security: securityOf(config.scope, anonymousRead),
    'x-scope': config.scope ?? 'admin',
  };
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
          'Token ledger proxy for a cosigned BSV-21 token. Errors are RFC 9457 problem details ' +
          '(application/problem+json) with a stable `code`.',
      },
      ...(options.publicBaseUrl === undefined ? {} : { servers: [{ url: options.publicBaseUrl }] }),
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

/** The /openapi.json and /docs routes (hidden from the document itself). */
export async function openApiRoutes(app: FastifyInstance): Promise<void> {
  app.get('/openapi.json', { schema: { hide: true }, config: { scope: 'public' } }, async () =>
    app.swagger(),
  );
  app.get('/docs', { schema: { hide: true }, config: { scope: 'public' } }, async (_request, reply) => {
    reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
      .header('cache-control', 'no-cache');
    return renderDocsPage(app.swagger() as unknown as Parameters<typeof renderDocsPage>[0]);
  });
}
