// Rate limits (contract.md, Limits): per API key, and per client IP for anonymous requests
// (IPv6 by /64), in a fixed or sliding window. A request whose key failed authentication counts
// as anonymous (its 401 comes after this hook: auth.ts). Runs after authentication (it reads `request.principal`).
// A key may carry its own limit (api_keys.rate_limit) in place of `perKey`.
// Every limited response carries `RateLimit-Policy` and `RateLimit` (IETF httpapi
// ratelimit-headers draft: `"<policy>";q=<quota>;w=<window s>` and `"<policy>";r=<remaining>;
// t=<reset s>`); over the limit the answer is a 429 RATE_LIMITED problem with `Retry-After`.
// Public routes (health, OpenAPI, docs) are not limited. A store that fails lets the request
// through (logged): limits protect the service, they must not take it down.
// An answer counts by its size too: each `answerBytes` it took on the wire beyond the first count
// once more against its caller's limit (after it is sent: the next requests pay for a large one).
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
  /** An answer counts once more per this many bytes sent beyond the first (absent or 0: not counted). */
  readonly answerBytes?: number;
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
  // Bytes the connection had sent when each request began (HTTP/1.1 answers one at a time).
  const sentBefore = new WeakMap<FastifyRequest, number>();
  const answerBytes = options.answerBytes ?? 0;
  if (answerBytes > 0)
    app.addHook('onResponse', async (request) => {
      const before = sentBefore.get(request);
      const socket = request.raw.socket;
      if (before === undefined || socket === null) return;
      const extra = Math.floor((socket.bytesWritten - before) / answerBytes);
      if (extra > 0) await chargeAnswer(request, options, extra, now);
    });
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config?.scope === 'public') return;
    if (answerBytes > 0 && request.raw.socket !== null)
      sentBefore.set(request, request.raw.socket.bytesWritten);
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
      // The store's own refusal while Redis is out of reach (rateLimitStoreDown 'refuse').
      if (err instanceof AppError) throw err;
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

/**
 * Counts `units` more requests for the client of an answer already sent: as many as fit (a
 * client at its limit is refused its next request anyway).
 */
async function chargeAnswer(
  request: FastifyRequest,
  options: RateLimitOptions,
  units: number,
  now: () => number,
): Promise<void> {
  const client = clientOf(request, options);
  try {
    for (let i = 0; i < Math.min(units, client.limit); i++) {
      const decision = await options.store.hit({
        client: client.id,
        limit: client.limit,
        windowMs: options.windowMs,
        algorithm: options.algorithm,
        nowMs: now(),
      });
      if (!decision.allowed) return;
    }
  } catch (err) {
    request.log.warn({ err }, 'rate limit store failed counting an answer by its size');
  }
}
