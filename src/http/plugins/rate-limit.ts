// Rate limits (contract.md, Limits): per API key, and per client IP for anonymous requests
// (IPv6 by /64), in a fixed or sliding window. A request whose key failed authentication counts
// as anonymous (its 401 comes after this hook: auth.ts). Runs after authentication (it reads `request.principal`).
// A key may carry its own limit (api_keys.rate_limit) in place of `perKey`.
// Every limited response carries `RateLimit-Policy` and `RateLimit` (IETF httpapi
// ratelimit-headers draft: `"<policy>";q=<quota>;w=<window s>` and `"<policy>";r=<remaining>;
// t=<reset s>`); over the limit the answer is a 429 RATE_LIMITED problem with `Retry-After`.
// Public routes (health, OpenAPI, docs) are not limited. A store that fails lets the request
// through (logged): limits protect the service, they must not take it down.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import ipaddr from 'ipaddr.js';
import { AppError } from '../app-error.js';
import type { RateLimitStore } from './rate-limit-store.js';
import type { RateLimitAlgorithm, RateLimitDecision } from './rate-limit-window.js';

export interface RateLimitOptions {
  readonly store: RateLimitStore;
  readonly algorithm: RateLimitAlgorithm;
  readonly windowMs: number;
  /** Requests per window per API key (a key's own limit, when it has one, wins). */
  readonly perKey: number;
  /** Requests per window per anonymous client IP. */
  readonly anonymous: number;
  /** Clock, ms since the epoch (default Date.now). */
  readonly now?: () => number;
}

export const RATE_LIMIT_HEADER = 'ratelimit';
export const RATE_LIMIT_POLICY_HEADER = 'ratelimit-policy';

interface Client {
  readonly id: string;
  readonly policy: 'key' | 'anonymous';
  readonly limit: number;
}

/**
 * The client an anonymous request is counted as: `ip:<IPv4>` (an IPv4-mapped IPv6 address as its
 * IPv4), or `ip:<prefix>::/64` for IPv6, since one host commonly holds a whole /64 and could
 * otherwise take a new address for each request. Every store keys by this.
 */
export function clientKeyOfAddress(address: string): string {
  if (!ipaddr.isValid(address)) return `ip:${address}`;
  const ip = ipaddr.process(address);
  if (ip.kind() === 'ipv4') return `ip:${ip.toString()}`;
  const prefix = (ip as ipaddr.IPv6).parts.slice(0, 4);
  return `ip:${new ipaddr.IPv6([...prefix, 0, 0, 0, 0]).toString()}/64`;
}

export function clientOf(request: FastifyRequest, options: RateLimitOptions): Client {
  // A shared public principal is everyone's: counted per client address, as anonymous callers.
  if (request.principal !== null && request.principal.shared !== true) {
    const limit = request.principal.rateLimit ?? options.perKey;
    return { id: `key:${request.principal.id}`, policy: 'key', limit };
  }
  return { id: clientKeyOfAddress(request.ip), policy: 'anonymous', limit: options.anonymous };
}

/** `"key";q=1200;w=60` */
export function policyHeader(policy: string, limit: number, windowMs: number): string {
  return `"${policy}";q=${limit};w=${Math.max(1, Math.ceil(windowMs / 1000))}`;
}

/** `"key";r=1199;t=42` */
export function rateLimitHeader(policy: string, decision: RateLimitDecision): string {
  return `"${policy}";r=${decision.remaining};t=${decision.resetSeconds}`;
}

function setHeaders(reply: FastifyReply, client: Client, windowMs: number, decision: RateLimitDecision) {
  reply.header(RATE_LIMIT_POLICY_HEADER, policyHeader(client.policy, client.limit, windowMs));
  reply.header(RATE_LIMIT_HEADER, rateLimitHeader(client.policy, decision));
}

/** Adds the limiting hook; install it after installAuth so the principal is known. */
export function installRateLimit(app: FastifyInstance, options: RateLimitOptions): void {
  const now = options.now ?? Date.now;
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config?.scope === 'public') return;
    const client = clientOf(request, options);
    let decision: RateLimitDecision;
    try {
      decision = await options.store.hit({
        client: client.id,
        limit: client.limit,
        windowMs: options.windowMs,
        algorithm: options.algorithm,
        nowMs: now(),
      });
    } catch (err) {
      request.log.warn({ err }, 'rate limit store failed; request let through');
      return;
    }
    setHeaders(reply, client, options.windowMs, decision);
    if (!decision.allowed) {
      reply.header('retry-after', String(decision.retryAfterSeconds));
      throw new AppError(
        'RATE_LIMITED',
        `Rate limit of ${client.limit} requests per ${Math.ceil(options.windowMs / 1000)} s exceeded; retry in ${decision.retryAfterSeconds} s`,
      );
    }
  });
}
