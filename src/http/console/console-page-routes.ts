// Serves the operator console: the page (GET /console), its script, its style sheet and the
// site's icon (GET /favicon.ico), all
// public (the page holds no data; the admin JSON routes behind it ask for the key). Hidden from
// the OpenAPI document like /docs. The CSP allows only same-origin script, style and fetch, and
// no framing (also X-Frame-Options: DENY).
import type { FastifyReply } from 'fastify';
import type { AppInstance } from '../app.js';
import { FAVICON_ICO } from './favicon.js';
import { readConsoleFiles } from './static-files.js';

export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function send(reply: FastifyReply, type: string, body: string | Buffer) {
  return reply
    .type(type)
    .header('content-security-policy', CONSOLE_CSP)
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-cache')
    .send(body);
}

export function consolePageRoutes() {
  const { page, script, css } = readConsoleFiles();
  const hidden = { schema: { hide: true }, config: { scope: 'public' as const } };
  return (app: AppInstance) => {
    app.get('/console', hidden, async (_request, reply) => send(reply, 'text/html; charset=utf-8', page));
    app.get('/console/app.js', hidden, async (_request, reply) =>
      send(reply, 'text/javascript; charset=utf-8', script),
    );
    app.get('/console/app.css', hidden, async (_request, reply) =>
      send(reply, 'text/css; charset=utf-8', css),
    );
    // Browsers ask every page's origin for it: an icon, not a 404 in the logs and the metrics.
    app.get('/favicon.ico', hidden, async (_request, reply) => send(reply, 'image/x-icon', FAVICON_ICO));
  };
}
