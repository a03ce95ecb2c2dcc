// HTTP metrics: every answer counted and timed under its route pattern (`/v1/tx/:txid`,
// never the URL; `unmatched` for 404s), and the `/metrics` route (Prometheus text format)
// for an admin key or, when `metricsToken` is set, that bearer token.
import type { FastifyInstance } from 'fastify';
import { sameSecret } from '../crypto/same-secret.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import { type ApiKeyVerifier, authenticate, presentedKey } from './plugins/auth.js';

export const METRICS_PATH = '/metrics';

/** Counts and times every answer (install on the root instance). */
export function installHttpMetrics(app: FastifyInstance, metrics: ServiceMetrics): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.is404 ? 'unmatched' : (request.routeOptions.url ?? 'unmatched');
    const labels = { method: request.method, route, status: String(reply.statusCode) };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, reply.elapsedTime / 1000);
    if (reply.statusCode >= 500) metrics.httpErrors.inc({ method: request.method, route });
  });
}

export interface MetricsRouteDeps {
  readonly metrics: ServiceMetrics;
  readonly apiKeys: ApiKeyVerifier;
  /** A bearer token that may also read the metrics. */
  readonly metricsToken?: string;
}

/** `GET /metrics`: the route itself is public; the handler asks for the token or an admin key. */
export function metricsRoutes(deps: MetricsRouteDeps) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get(
      METRICS_PATH,
      {
        // Public to the frame (the metrics token is no API key, and scrapes are not rate
        // limited); the handler asks for the token or an admin key, as the document says.
        config: { scope: 'public', scopeInHandler: 'admin' },
        schema: {
          summary: 'Prometheus metrics (admin key or the metrics token)',
          description:
            'Prometheus text. Needs an admin API key (auth_token or Bearer) or, when `metricsToken` is set, that token as a Bearer token.',
          tags: ['operations'],
        },
      },
      async (request, reply) => {
        const presented = presentedKey(request.query, request.headers.authorization);
        const token = deps.metricsToken;
        if (!(token !== undefined && presented.kind === 'key' && sameSecret(presented.key, token))) {
          await authenticate('admin', presented, { verifier: deps.apiKeys, anonymousRead: false });
        }
        const body = await deps.metrics.registry.metrics();
        reply.header('content-type', deps.metrics.registry.contentType);
        return body;
      },
    );
  };
}
