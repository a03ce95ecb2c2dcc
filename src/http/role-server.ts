// The HTTP server of a process that runs no api role (a tracker, a deliverer, a writer): only
// /healthz, /readyz and /metrics on --port, so that every process can be probed and scraped
// (docs/operations.md Health, Metrics). /metrics asks for what the api's does: the metrics token
// or an admin key (checked against the database); anything else is a 404 problem.
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import { installErrorHandler } from './error-handler.js';
import { healthRoutes, type ReadinessCheck } from './health.js';
import { metricsRoutes } from './metrics.js';
import type { ApiKeyVerifier } from './plugins/auth.js';
import { installNotFoundHandler } from './plugins/method-not-allowed.js';
import { installRequestIdHeader, requestIdGenerator } from './plugins/request-id.js';
import { ProblemSchema } from './schemas/common.js';

export interface RoleServerDeps {
  readonly config: Pick<Config, 'host' | 'port' | 'bodyLimit' | 'fundingRefillMs' | 'metricsToken'>;
  readonly readiness: ReadinessCheck;
  readonly metrics: ServiceMetrics;
  readonly apiKeys: ApiKeyVerifier;
  /** Where failures are logged (warnings and errors only: probes and scrapes come every few seconds). */
  readonly logger?: FastifyBaseLogger;
}

export interface RoleServer {
  /** Base URL it listens on. */
  readonly url: string;
  stop(): Promise<void>;
}

export function buildRoleServer(deps: RoleServerDeps): FastifyInstance {
  const { config } = deps;
  // Probes and scrapes come every few seconds: only what fails is logged.
  const app = Fastify({
    ...(deps.logger === undefined
      ? { logger: false }
      : { loggerInstance: deps.logger.child({ server: 'health' }, { level: 'warn' }) }),
    genReqId: requestIdGenerator(),
    bodyLimit: config.bodyLimit,
  });
  app.addSchema(ProblemSchema);
  installRequestIdHeader(app);
  installErrorHandler(app, config);
  installNotFoundHandler(app);
  app.register(healthRoutes(deps.readiness));
  app.register(
    metricsRoutes({
      metrics: deps.metrics,
      apiKeys: deps.apiKeys,
      ...(config.metricsToken !== undefined && { metricsToken: config.metricsToken }),
    }),
  );
  return app;
}

export async function startRoleServer(deps: RoleServerDeps): Promise<RoleServer> {
  const app = buildRoleServer(deps);
  const url = await app.listen({ host: deps.config.host, port: deps.config.port });
  return { url, stop: () => app.close() };
}
