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
  app.get('/', { schema: { hide: true }, config: { scope: 'public' } }, async (request, reply) => {
    reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
      .header('cache-control', 'no-cache');
    return homePage(`${request.protocol}://${request.host}`);
  });
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The start page: what a newcomer tries first, with this service's own address in the commands,
 * and where the guides are (they ship with the package, in docs/).
 */
export function homePage(origin: string): string {
  const at = escapeHtml(origin);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>tokenproxy</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:sans-serif;margin:2em;max-width:46em;line-height:1.5}pre{background:#f4f4f4;padding:.6em;overflow-x:auto}</style>
</head><body>
<h1>tokenproxy</h1>
<p>A token ledger proxy for a cosigned BSV-21 token: balances, unspent outputs and the change
feed of the token, and transfers that wallets sign and the service checks, cosigns, funds and
broadcasts, each followed as a ticket until it is mined.</p>
<h2>Try it first</h2>
<ol>
<li>Read the token (no key needed): its ID, decimals and fee tiers.
<pre>curl -s ${at}/v1/config</pre></li>
<li>A balance (amounts are integers in the smallest unit: divide by 10^decimals):
<pre>curl -s -X POST ${at}/v2/balance -H 'content-type: application/json' -d '["ADDRESS"]'</pre></li>
<li>An API key for transfers, made by the operator (the admin key is in the data folder):
<pre>npx tokenproxy keys create --url ${at}</pre></li>
<li>Test funds on a local ledger: <code>npx tokenproxy mint --to ADDRESS --amount 10 --url ${at}</code>,
then a signed transfer with <code>@mnee/ts-sdk</code> or a client generated from the
<a href="openapi.json">OpenAPI document</a>: the README's wallet quick start walks through both.</li>
</ol>
<h2>Read on</h2>
<ul>
<li><a href="docs">API reference</a>: every operation, its parameters, answers and problems</li>
<li>The guides, in the package's <code>docs/</code> folder: <code>README.md</code> (the wallet
quick start), <code>docs/clients.md</code> (keys, history paging, callbacks and how to verify
them, rate limits), <code>docs/errors.md</code> (every problem code), <code>docs/contract.md</code>
(the wire contract), <code>docs/operations.md</code> (for operators)</li>
<li><a href="console">Operator console</a> (admin key); <a href="healthz">liveness</a> and
<a href="readyz">readiness</a></li>
</ul>
</body></html>
`;
}
