// Unknown route vs wrong method: a request that matches no route answers 405 with an
// `Allow` header when its path is served under other methods (computed from the router, so
// it agrees with routing, HEAD included as Fastify adds it for GET), and 404 otherwise.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendProblem } from '../problem.js';

const CANDIDATE_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

function printable(text: string, max = 200): string {
  const clean = text.replace(/[^\x21-\x7e]/g, '?');
  return clean.length > max ? `${clean.slice(0, max)}...` : clean;
}

/** The methods the router serves for a concrete path, in a stable order. */
export function allowedMethods(
  app: FastifyInstance,
  url: string,
  extraMethods: Iterable<string> = [],
): string[] {
  const path = pathOf(url);
  const candidates = new Set<string>([...CANDIDATE_METHODS, ...extraMethods]);
  return [...candidates].filter((method) => {
    const found = app.findRoute({ method: method as 'GET', url: path });
    // The CORS preflight route (`OPTIONS *`, cors.ts) matches every path: it allows nothing.
    return (
      found !== null &&
      !(method === 'OPTIONS' && (found.params as Record<string, unknown>)['*'] !== undefined)
    );
  });
}

/** Installs the root not-found handler that answers 405 or 404 as problems. */
export function installNotFoundHandler(app: FastifyInstance): void {
  const routeMethods = new Set<string>();
  app.addHook('onRoute', (route) => {
    for (const m of Array.isArray(route.method) ? route.method : [route.method])
      routeMethods.add(m.toUpperCase());
  });
  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    const allow = allowedMethods(app, request.url, routeMethods);
    const path = printable(pathOf(request.url));
    const method = printable(request.method, 20);
    if (allow.length > 0) {
      reply.header('allow', allow.join(', '));
      return sendProblem(
        reply,
        'METHOD_NOT_ALLOWED',
        `${method} is not allowed on ${path}; use ${allow.join(', ')}`,
      );
    }
    return sendProblem(reply, 'NOT_FOUND', `No route for ${method} ${path}`);
  });
}
