// A request body sent without a Content-Type is read as JSON. The Go client
// (go-mnee-1sat-sdk) posts its JSON bodies to /v1/sync, /v1/transfer and /v2/transfer without
// one (net/http sets none unless asked); every body this API takes is JSON. A body with a
// Content-Type other than JSON is still a 415.
import type { FastifyInstance } from 'fastify';

export function installDefaultJsonContentType(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    const { headers } = request;
    if (headers['content-type'] !== undefined) return;
    const hasBody =
      headers['transfer-encoding'] !== undefined ||
      (headers['content-length'] !== undefined && headers['content-length'] !== '0');
    if (hasBody) headers['content-type'] = 'application/json';
  });
}
