// ARC's status callbacks into the service (X-CallbackUrl / X-CallbackToken at broadcast): the
// fast path of the tracker. The bearer token is checked by the ARC adapter; polling remains the
// guarantee, since ARC drops a callback URL for good after one network error.
import { Type } from 'typebox';
import type { ArcLedger } from '../../ledger/arc/arc-ledger.js';
import type { AppInstance } from '../app.js';

export const ARC_CALLBACK_PATH = '/v1/arc/callback';

export function arcCallbackRoutes(arc: ArcLedger) {
  return (app: AppInstance) => {
    app.post(
      ARC_CALLBACK_PATH,
      { config: { scope: 'public' }, schema: { hide: true, body: Type.Unknown() } },
      async (request, reply) => {
        const result = await arc.handleArcCallback(request.body, request.headers.authorization);
        if (result.status === 200) return { accepted: result.accepted, ignored: result.ignored };
        return reply
          .code(result.status)
          .type('application/problem+json')
          .send({
            type: 'about:blank',
            title: result.status === 401 ? 'Unauthorized' : 'Bad request',
            status: result.status,
            detail: result.error,
            code: result.status === 401 ? 'UNAUTHORIZED' : 'INVALID_REQUEST',
            message: result.error,
          });
      },
    );
  };
}
