// Versioning headers (contract.md, Versioning): a v1 route kept for old clients declares
// `config: { deprecatedBy: '/v2/...' }` and every answer it gives (errors included) carries
// `Deprecation: true` and `Link: </v2/...>; rel="successor-version"`.
import type { FastifyInstance, FastifyReply } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Path of the successor of a deprecated route, e.g. `/v2/utxos`. */
    deprecatedBy?: string;
  }
}

/** Adds the deprecation headers to a reply (for routes that decide it themselves). */
export function markDeprecated(reply: FastifyReply, successor: string): FastifyReply {
  reply.header('deprecation', 'true');
  reply.header('link', `<${encodeURI(successor)}>; rel="successor-version"`);
  return reply;
}

export function installDeprecationHeaders(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const successor = route.config?.deprecatedBy;
    if (successor !== undefined && !successor.startsWith('/')) {
      throw new Error(`route ${route.url}: config.deprecatedBy must be a path starting with '/'`);
    }
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const successor = request.is404 ? undefined : request.routeOptions.config.deprecatedBy;
    if (successor !== undefined) markDeprecated(reply, successor);
    return payload;
  });
}
