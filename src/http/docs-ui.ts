// /docs: the interactive API reference (Swagger UI, served by @fastify/swagger-ui from the files
// it bundles: nothing is loaded from elsewhere, so it works air-gapped and under a strict CSP),
// over the service's own OpenAPI document; and `GET /`, a small page leading to it, the
// console and the health checks.
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, RouteOptions } from 'fastify';

export const DOCS_PREFIX = '/docs';

/** Scripts and styles from /docs itself; the UI sets inline styles; try-it calls this origin. */
export const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * The docs UI's routes cannot carry `config.scope` (the plugin declares them): they are public.
 * Installed as an onRoute hook before authentication's check.
 */
export function markDocsRoutesPublic(route: RouteOptions): void {
  if (route.url === DOCS_PREFIX || route.url?.startsWith(`${DOCS_PREFIX}/`)) {
    route.config = { ...(route.config ?? {}), scope: 'public' };
  }
}

export async function docsRoutes(app: FastifyInstance): Promise<void> {
  await app.register(swaggerUi, {
    routePrefix: DOCS_PREFIX,
    staticCSP: DOCS_CSP,
    validatorUrl: false,
    theme: { title: 'tokenproxy API reference' },
    uiConfig: {
      deepLinking: true,
      displayOperationId: true,
      docExpansion: 'list',
      defaultModelsExpandDepth: 0,
      tryItOutEnabled: false,
      persistAuthorization: false,
    },
  });
  app.get('/', { schema: { hide: true }, config: { scope: 'public' } }, async (_request, reply) => {
    reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
      .header('cache-control', 'no-cache');
    return HOME_PAGE;
  });
}

const HOME_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>tokenproxy</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:sans-serif;margin:2em;max-width:40em;line-height:1.5}</style>
</head><body>
<h1>tokenproxy</h1>
<p>A token ledger proxy for a cosigned BSV-21 token.</p>
<ul>
<li><a href="docs">API reference</a> (try it in the browser) and its <a href="openapi.json">OpenAPI document</a></li>
<li><a href="console">Operator console</a> (admin key)</li>
<li><a href="healthz">Liveness</a> and <a href="readyz">readiness</a></li>
</ul>
</body></html>
`;
