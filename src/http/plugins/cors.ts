// CORS for browser wallets (@fastify/cors): the public API (routes of scope `read` or `submit`,
// and the OpenAPI document) answers preflights and carries Access-Control-Allow-Origin for the
// configured origins (config `corsOrigins`, default any), never with credentials: a wallet
// sends its key itself. Admin, console and other public pages (health, metrics, docs) get no
// CORS headers and their preflights are refused as before (405).
//
// The plugin is installed before authentication so a preflight (which carries no key) is
// answered first, and a 401 or 429 of a public route still carries the headers a browser needs
// to read it.
import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import type { RouteScope } from './auth.js';
import { REQUEST_ID_HEADER } from './request-id.js';

/** Response headers a browser script may read. */
export const CORS_EXPOSED_HEADERS = [
  REQUEST_ID_HEADER,
  'ratelimit',
  'ratelimit-policy',
  'retry-after',
  'deprecation',
  'link',
  'location',
  'idempotent-replayed',
];

const CORS_DOCUMENTS = new Set(['/openapi.json']);

/** The scopes and routes CORS applies to. */
export function corsApplies(scope: RouteScope | undefined, url: string): boolean {
  return scope === 'read' || scope === 'submit' || CORS_DOCUMENTS.has(url);
}

/**
 * Installs CORS on the root instance; call before installAuth. An empty origin list installs
 * nothing. Preflights are matched to the route they ask for (method and path).
 */
export function installCors(app: FastifyInstance, origins: readonly string[]): void {
  if (origins.length === 0) return;
  // The routes CORS applies to, as patterns: a preflight names a method and a path.
  const open: Array<{ readonly methods: readonly string[]; readonly pattern: RegExp }> = [];
  app.addHook('onRoute', (route: RouteOptions) => {
    const url = route.url ?? '';
    // The plugin's own `OPTIONS *` route cannot carry a scope: it is public (it answers
    // preflights in its hook and sends any other OPTIONS to the 404/405 handler).
    if (url === '*' || url === '/*') {
      route.config = { ...(route.config ?? {}), scope: 'public' };
      return;
    }
    if (!corsApplies(route.config?.scope as RouteScope | undefined, url)) return;
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).map((m) => m.toUpperCase());
    open.push({ methods, pattern: routePattern(url) });
  });
  const origin = origins.includes('*') ? '*' : [...origins];
  const allowed: FastifyCorsOptions = {
    origin,
    credentials: false,
    methods: ['GET', 'HEAD', 'POST'],
    exposedHeaders: CORS_EXPOSED_HEADERS,
    maxAge: 600,
    strictPreflight: true,
  };
  const refused: FastifyCorsOptions = { origin: false };
  const applies = (request: FastifyRequest): boolean => {
    if (request.method !== 'OPTIONS') {
      return !request.is404 && request.routeOptions.config.scope !== undefined
        ? corsApplies(request.routeOptions.config.scope, request.routeOptions.url ?? '')
        : false;
    }
    // A preflight: the route it asks about, found as the router finds it.
    const method = request.headers['access-control-request-method'];
    if (typeof method !== 'string' || request.headers.origin === undefined) return false;
    const path = request.url.split('?')[0] ?? '';
    const wanted = method.toUpperCase();
    return open.some((route) => route.methods.includes(wanted) && route.pattern.test(path));
  };
  // Called directly (not app.register) so its onRequest hook runs before authentication's.
  const plugin = cors as unknown as (
    instance: FastifyInstance,
    options: FastifyCorsOptions,
    done: (error?: Error) => void,
  ) => void;
  plugin(
    app,
    {
      hideOptionsRoute: true,
      delegator: (request, callback) => callback(null, applies(request) ? allowed : refused),
    },
    (error) => {
      if (error) throw error;
    },
  );
}

/** `/v2/history/:address` -> a RegExp matching its concrete paths. */
export function routePattern(url: string): RegExp {
  const parts = url.split('/').map((part) => {
    if (part.startsWith(':')) return '[^/]+';
    if (part === '*') return '.*';
    return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  });
  return new RegExp(`^${parts.join('/')}$`);
}
