// The content types a JSON body may come in. A request body sent without a Content-Type is read
// as JSON: the Go client (go-mnee-1sat-sdk) posts its JSON bodies to /v1/sync, /v1/transfer and
// /v2/transfer without one (net/http sets none unless asked), and every body this API takes is
// JSON. A body of any other declared type on a route that takes a JSON body is a 415, as
// docs/errors.md says, before the body is read: `fetch(url, { body: JSON.stringify(x) })`
// without a header sends `text/plain;charset=UTF-8`, which Fastify would otherwise parse as a
// string and answer with a validation error ("body must be array") that hides the cause.
import type { FastifyInstance } from 'fastify';
import { AppError } from '../app-error.js';

/** application/json and the +json types (application/problem+json, ...). */
const JSON_TYPE = /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;

export function installDefaultJsonContentType(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    const { headers } = request;
    const hasBody =
      headers['transfer-encoding'] !== undefined ||
      (headers['content-length'] !== undefined && headers['content-length'] !== '0');
    if (!hasBody) return;
    const type = headers['content-type'];
    if (type === undefined) {
      headers['content-type'] = 'application/json';
      return;
    }
    if (request.routeOptions.schema?.body !== undefined && !JSON_TYPE.test(type)) {
      throw new AppError(
        'UNSUPPORTED_MEDIA_TYPE',
        `Content-Type ${type.split(';')[0]!.trim()} is not taken here; send the JSON body as application/json`,
      );
    }
  });
}
