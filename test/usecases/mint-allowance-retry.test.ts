// A mint that committed but whose answer was lost (the process killed before the answer was
// kept) spent its key's whole allowance; the retry under the same Idempotency-Key answers that
// mint, not 403 MINT_ALLOWANCE_EXCEEDED (which would tell the operator no mint happened, and
// invite a second one).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiContextOf } from '../../src/compose.js';
import { keepPrepared, requestHashOf } from '../../src/store/access/idempotency-store.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import { startTestService, type TestService } from '../e2e/support.js';
import { party } from '../support/token-world.js';

describe('the retry of a committed mint that used up its allowance', () => {
  let t: TestService;
  const recipient = party('allowance retry recipient').address;
  const send = async (method: string, path: string, body: unknown, idempotencyKey?: string) => {
    const res = await fetch(`${t.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${t.adminKey}`,
        'content-type': 'application/json',
        ...(idempotencyKey !== undefined && { 'idempotency-key': idempotencyKey }),
      },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  before(async () => {
    t = await startTestService();
  });
  after(() => t?.stop());

  it('answers the first mint', async () => {
    const { db, keys } = t.service.parts;
    const [admin] = await db.query<{ id: string }>(
      "SELECT id FROM api_keys WHERE 'admin' = ANY(scopes) LIMIT 1",
    );
    const keyId = admin!.id;
    const set = await send('PUT', `/v2/admin/allowances/${keyId}`, { amount: '4', reason: 'test' });
    assert.ok(set.status < 300, JSON.stringify(set.body));
    const body = { to: recipient, amount: '4' };
    const scope = {
      apiKeyId: keyId,
      key: 'mint-allowance-retry',
      requestHash: requestHashOf(['POST', '/v2/admin/mint', JSON.stringify(body)]),
    };
    // The first attempt as the route runs it; its answer is never kept.
    const first = await mintTokens(
      apiContextOf(t.service.parts),
      keys.mint,
      { to: recipient, amount: 400_000n, minter: keyId },
      {
        earlier: async () => null,
        keep: async (raw) => {
          const kept = await keepPrepared(db, scope, raw);
          assert.ok(kept !== 'conflict');
          return kept;
        },
      },
    );
    const retry = await send('POST', '/v2/admin/mint', body, 'mint-allowance-retry');
    assert.equal(retry.status, 200, JSON.stringify(retry.body));
    assert.equal(retry.body.txid, first.txid);
    // The allowance is used up by the one mint, charged once.
    const again = await send('POST', '/v2/admin/mint', { to: recipient, amount: '1' }, 'mint-after');
    assert.equal(again.status, 403, JSON.stringify(again.body));
    assert.equal(again.body.code, 'MINT_ALLOWANCE_EXCEEDED');
  });
});
