// ARC's callbacks reach the ARC adapter through a public route: body and Authorization header
// are handed over as received, and the adapter's verdict becomes the answer.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ARC_CALLBACK_PATH, arcCallbackRoutes } from '../../src/http/routes/arc-callback-routes.js';
import type { ArcLedger } from '../../src/ledger/arc/arc-ledger.js';
import { testApp } from './support.js';

function fakeArc(seen: { body: unknown; authorization: string | undefined }[]): ArcLedger {
  return {
    async handleArcCallback(body: unknown, authorization: string | undefined) {
      seen.push({ body, authorization });
      return authorization === 'Bearer right-token-0123456789'
        ? { status: 200 as const, accepted: 1, ignored: 0 }
        : { status: 401 as const, error: 'callback token does not match' };
    },
  } as unknown as ArcLedger;
}

describe('ARC callback route', () => {
  it('hands the callback to the adapter and answers its verdict', async () => {
    const seen: { body: unknown; authorization: string | undefined }[] = [];
    const { app } = testApp({ routes: [arcCallbackRoutes(fakeArc(seen))] });
    const body = { txid: 'ab'.repeat(32), txStatus: 'MINED' };
    const ok = await app.inject({
      method: 'POST',
      url: ARC_CALLBACK_PATH,
      headers: { authorization: 'Bearer right-token-0123456789' },
      payload: body,
    });
    assert.equal(ok.statusCode, 200);
    assert.deepEqual(ok.json(), { accepted: 1, ignored: 0 });
    assert.deepEqual(seen[0], { body, authorization: 'Bearer right-token-0123456789' });

    const refused = await app.inject({
      method: 'POST',
      url: ARC_CALLBACK_PATH,
      headers: { authorization: 'Bearer wrong' },
      payload: body,
    });
    assert.equal(refused.statusCode, 401);
    assert.equal(refused.json().code, 'UNAUTHORIZED');
    await app.close();
  });
});
