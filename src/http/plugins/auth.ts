// API key authentication and scopes (contract.md, Authentication).
// The key comes from the `auth_token` query parameter or `Authorization: Bearer <key>`.
// Every route declares the scope it needs in its config: `{ config: { scope: 'read' } }`.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../app-error.js';

/**
 * `admin` holds every scope. The narrow admin scopes (issue 32) each hold one power of the
 * issuer's and `audit`, the read-only view of the admin routes; `audit` holds `read`.
 */
export type Scope =
  | 'read'
  | 'submit'
  | 'admin'
  | 'mint'
  | 'burn'
  | 'freeze'
  | 'seize'
  | 'pause'
  | 'keys'
  | 'policy'
  | 'audit';

/** The narrow admin scopes: each grants its power and `audit`. */
export const NARROW_ADMIN_SCOPES = ['mint', 'burn', 'freeze', 'seize', 'pause', 'keys', 'policy'] as const;
/** What a route needs: a scope, or `public` (no key is looked at: health, docs). */
export type RouteScope = Scope | 'public';

export interface ApiKeyPrincipal {
  readonly id: string;
  readonly name: string;
  readonly scopes: readonly Scope[];
  /** The key's own rate limit (requests per window); null or absent: the configured one. */
  readonly rateLimit?: number | null;
  /**
   * A well-known public token standing for everyone who holds it (the reference client's sandbox
   * default, in sandbox): counted per client address by the rate limit, and it owns nothing it
   * submits (no one sees another's callback URL through it).
   */
  readonly shared?: boolean;
}

export interface ApiKeyVerifier {
  /** The principal of a valid key; null for an unknown or revoked one. */
  verify(rawKey: string): Promise<ApiKeyPrincipal | null>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope a route needs; required on every route (buildApp refuses a route without it). */
    scope?: RouteScope;
    /**
     * On a `public` route whose handler asks for a key itself (GET /metrics: an admin key or
     * the metrics token): the scope it asks for, which the OpenAPI document states.
     */
    scopeInHandler?: Scope;
  }
  interface FastifyRequest {
    /** The authenticated key, or null for an anonymous (or public-route) request. */
    principal: ApiKeyPrincipal | null;
    /**
     * A failed authentication (401), held back until the rate limit has counted the request
     * against the client's address: an unknown key does not escape the anonymous limit.
     */
    authFailure: AppError | null;
  }
}

export const ROUTE_SCOPES: readonly RouteScope[] = [
  'public',
  'read',
  'submit',
  'admin',
  ...NARROW_ADMIN_SCOPES,
  'audit',
];

const isNarrowAdmin = (s: Scope) => (NARROW_ADMIN_SCOPES as readonly Scope[]).includes(s);

/** admin has every scope; a narrow admin scope implies audit; audit and submit imply read. */
export function grants(scopes: readonly Scope[], needed: Scope): boolean {
  if (scopes.includes('admin')) return true;
  if (scopes.includes(needed)) return true;
  const audits = scopes.includes('audit') || scopes.some(isNarrowAdmin);
  if (needed === 'audit') return audits;
  if (needed === 'read') return audits || scopes.includes('read') || scopes.includes('submit');
  return false;
}

export type PresentedKey =
  | { readonly kind: 'none' }
  | { readonly kind: 'key'; readonly key: string }
  | { readonly kind: 'malformed'; readonly reason: string };

/** Reads the key from the query (`auth_token`) or the Authorization header. */
export function presentedKey(query: unknown, authorization: string | undefined): PresentedKey {
  const fromQuery =
    typeof query === 'object' && query !== null ? (query as Record<string, unknown>).auth_token : undefined;
  let queryKey: string | undefined;
  if (fromQuery !== undefined) {
    if (typeof fromQuery !== 'string')
      return { kind: 'malformed', reason: 'auth_token given more than once' };
    // An empty `auth_token=` is no key: the Go client always sends the parameter, empty when it
    // has no key, and reads anonymously like any client without one.
    queryKey = fromQuery === '' ? undefined : fromQuery;
  }
  let headerKey: string | undefined;
  if (authorization !== undefined) {
    const match = /^Bearer +(\S+) *$/i.exec(authorization);
    if (match === null) return { kind: 'malformed', reason: 'Authorization header must be Bearer <key>' };
    headerKey = match[1];
  }
  if (queryKey !== undefined && headerKey !== undefined && queryKey !== headerKey) {
    return { kind: 'malformed', reason: 'auth_token and the Authorization header carry different keys' };
  }
  const key = headerKey ?? queryKey;
  if (key === undefined) return { kind: 'none' };
  return { kind: 'key', key };
}

export interface AuthOptions {
  readonly verifier: ApiKeyVerifier;
  /** When true, read routes answer requests without a key (anonymous). */
  readonly anonymousRead: boolean;
  /** Well-known public tokens read as no key (src/http/well-known-tokens.ts). */
  readonly anonymousTokens?: ReadonlySet<string>;
  /** Well-known public tokens that stand for a shared principal (sandbox only: well-known-tokens.ts). */
  readonly publicPrincipals?: ReadonlyMap<string, ApiKeyPrincipal>;
}

/** What a 401 for a missing key says: how a newcomer gets one. */
export const HOW_TO_GET_A_KEY =
  'the operator makes one with `npx tokenproxy keys create` (docs/clients.md, "Keys")';

/**
 * A 403 for a key that was verified but lacks the route's scope: it carries the key, so that the
 * rate limit counts the request against that key's own limit (installAuth).
 */
export class ScopeForbidden extends AppError {
  constructor(
    readonly principal: ApiKeyPrincipal,
    detail: string,
  ) {
    super('FORBIDDEN', detail);
  }
}

/** Decides who the request is for a route scope; throws 401/403 AppErrors. */
export async function authenticate(
  needed: RouteScope,
  presented: PresentedKey,
  options: AuthOptions,
): Promise<ApiKeyPrincipal | null> {
  if (needed === 'public') return null;
  if (presented.kind === 'malformed')
    throw new AppError('UNAUTHORIZED', `Invalid API key: ${presented.reason}`);
  const shared = presented.kind === 'key' ? options.publicPrincipals?.get(presented.key) : undefined;
  if (shared !== undefined) {
    if (!grants(shared.scopes, needed))
      throw new ScopeForbidden(shared, `this public token lacks the '${needed}' scope`);
    return shared;
  }
  if (presented.kind === 'key' && options.anonymousTokens?.has(presented.key) === true) {
    if (needed === 'read' && options.anonymousRead) return null;
    throw new AppError(
      'UNAUTHORIZED',
      `A well-known public token is no API key: send a key of your own; ${HOW_TO_GET_A_KEY}`,
    );
  }
  if (presented.kind === 'none') {
    if (needed === 'read' && options.anonymousRead) return null;
    throw new AppError(
      'UNAUTHORIZED',
      `An API key is required (auth_token or Authorization: Bearer); ${HOW_TO_GET_A_KEY}`,
    );
  }
  const principal = await options.verifier.verify(presented.key);
  if (principal === null) throw new AppError('UNAUTHORIZED', 'Invalid API key');
  if (!grants(principal.scopes, needed))
    throw new ScopeForbidden(principal, `API key lacks the '${needed}' scope`);
  return principal;
}

/** The key a submission is recorded under: none for a shared public principal. */
export function submitterIdOf(principal: ApiKeyPrincipal | null): string | null {
  return principal === null || principal.shared === true ? null : principal.id;
}

/** The principal of a request (null when anonymous). */
export function principalOf(request: FastifyRequest): ApiKeyPrincipal | null {
  return request.principal;
}

/**
 * Installs the `principal` request slot, the per-request check and the scope-on-every-route rule.
 * A 401 or 403 is not answered here: it is kept in `authFailure` and answered by
 * installAuthFailures' hook, which the app adds after the rate limit's, so that refused requests
 * count too: a 401's as anonymous (an unknown key does not escape the anonymous limit), a 403's
 * against the key that lacked the scope.
 */
export function installAuth(app: FastifyInstance, options: AuthOptions): void {
  app.decorateRequest('principal', null);
  app.decorateRequest('authFailure', null);
  app.addHook('onRoute', (route) => {
    const scope = route.config?.scope;
    if (scope === undefined || !ROUTE_SCOPES.includes(scope)) {
      const methods = Array.isArray(route.method) ? route.method.join(',') : route.method;
      throw new Error(
        `route ${methods} ${route.url} must declare config.scope (${ROUTE_SCOPES.join(' | ')})`,
      );
    }
  });
  app.addHook('onRequest', async (request) => {
    if (request.is404) return;
    const needed = request.routeOptions.config.scope ?? 'admin';
    try {
      request.principal = await authenticate(
        needed,
        presentedKey(request.query, request.headers.authorization),
        options,
      );
    } catch (err) {
      if (err instanceof ScopeForbidden) {
        request.principal = err.principal;
        request.authFailure = err;
        return;
      }
      if (!(err instanceof AppError && err.code === 'UNAUTHORIZED')) throw err;
      request.principal = null;
      request.authFailure = err;
    }
  });
  // installAuthFailures answers a held-back refusal before this; should an app be built without
  // it, no handler runs for a refused request all the same (a 403 holds a principal).
  app.addHook('preHandler', async (request) => {
    if (request.authFailure !== null) throw request.authFailure;
  });
}

/** Answers the 401 or 403 that installAuth held back; add it after the rate limit's hook. */
export function installAuthFailures(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    if (request.authFailure !== null) throw request.authFailure;
  });
}
