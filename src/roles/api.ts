// The api role: the HTTP server with every route of the route index (http/routes/index.ts),
// its rate limits (in Redis when redisUrl is set), and the order it stops in: the server first
// (no more transfers), then the submissions in flight, then what they queued for broadcasting.
import { apiContextOf, type Parts } from '../compose.js';
import { type AppInstance, buildApp } from '../http/app.js';
import type { ReadinessCheck } from '../http/health.js';
import { createMemoryRateLimitStore, type RateLimitStore } from '../http/plugins/rate-limit-store.js';
import { withStoreDownMode } from '../http/plugins/rate-limit-store-fallback.js';
import { createRedisRateLimitStore } from '../http/plugins/rate-limit-store-redis.js';
import { routeIndex } from '../http/routes/index.js';
import { storeApiKeyVerifier } from '../store/access/api-keys-store.js';
import { databaseReadiness } from '../store/db/db-readiness.js';

export interface ApiRole {
  /** Base URL the server listens on. */
  readonly url: string;
  readonly app: AppInstance;
  stop(): Promise<void>;
}

/** `readiness`: what /readyz answers (default: the database answers); the service adds its other roles. */
export async function startApiRole(
  parts: Parts,
  version: string,
  readiness: ReadinessCheck = databaseReadiness(parts.db),
): Promise<ApiRole> {
  const { config, logger, db } = parts;
  const api = apiContextOf(parts);
  const apiKeys = storeApiKeyVerifier(db);
  const rateLimit = config.rateLimitEnabled ? await rateLimitOf(parts) : undefined;
  const closeRateLimit = async () => rateLimit?.store.close();
  const app = buildApp({
    config,
    logger,
    apiKeys,
    readiness,
    version,
    ...(rateLimit !== undefined && { rateLimit }),
    metrics: parts.metrics,
    routes: routeIndex({ ...parts, ctx: api }, apiKeys),
  });
  let url: string;
  try {
    url = await app.listen({ host: config.host, port: config.port });
  } catch (err) {
    await closeRateLimit().catch(() => undefined);
    throw err;
  }
  const steps = [
    () => app.close(),
    async () => api.submissions.close(),
    async () => api.broadcasts.close(),
    closeRateLimit,
  ];
  return {
    url,
    app,
    async stop() {
      for (const step of steps) await step().catch((err) => logger.error({ err }, 'stopping a role failed'));
    },
  };
}

/**
 * Rate limits: shared through Redis when `redisUrl` is set (what they do while it is out of reach:
 * rateLimitStoreDown), else counted in this process.
 */
async function rateLimitOf(parts: Parts) {
  const { config } = parts;
  const store: RateLimitStore =
    config.redisUrl !== undefined
      ? withStoreDownMode(await createRedisRateLimitStore({ url: config.redisUrl }), {
          mode: config.rateLimitStoreDown,
          registry: parts.metrics.registry,
          log: parts.logger,
        })
      : createMemoryRateLimitStore();
  return {
    store,
    algorithm: config.rateLimitAlgorithm,
    windowMs: config.rateLimitWindowMs,
    perKey: config.rateLimitPerKey,
    anonymous: config.rateLimitAnonymous,
    answerBytes: config.rateLimitAnswerBytes,
  };
}
