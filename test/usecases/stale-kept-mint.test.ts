// A mint kept under its Idempotency-Key before it was submitted, whose submission then failed (the
// process killed after the keep), loses the treasury output it picked to another mint. The retry
// under the same key builds it again and mints once, with the allowance charged once; before, every
// retry resubmitted the stale transaction and was refused 400 INPUT_SPENT until the key expired.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiContextOf } from '../../src/compose.js';
import { txidOf } from '../../src/crypto/txid.js';
import {
  keepPrepared,
  recallPrepared,
  replaceStalePrepared,
  requestHashOf,
} from '../../src/store/access/idempotency-store.js';
import { allowanceSpending } from '../../src/usecases/controls/allowances.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import { http } from '../e2e/e2e-http.js';
import { startTestService, type TestService } from '../e2e/support.js';
import { party } from '../support/token-world.js';

describe('a kept mint whose treasury output another mint took', () => {
  let t: TestService;
  let keyId: string;
  const recipient = party('stale kept mint recipient').address;
  const other = party('stale kept mint other').address;
  const send = async (method: string, path: string, body?: unknown, idempotencyKey?: string) => {
    const answer = await http(t.url, method, path, {
      key: t.adminKey,
      body,
      ...(idempotencyKey !== undefined && { headers: { 'idempotency-key': idempotencyKey } }),
    });
    return { status: answer.status, body: answer.json as Record<string, unknown> };
  };

  before(async () => {
    t = await startTestService();
    const [admin] = await t.service.parts.db.query<{ id: string }>(
      "SELECT id FROM api_keys WHERE 'admin' = ANY(scopes) LIMIT 1",
    );
    keyId = admin!.id;
  });
  after(() => t?.stop());

  it('is built again by the retry, minted once and charged once', async () => {
    const { db, keys } = t.service.parts;
    const set = await send('PUT', `/v2/admin/allowances/${keyId}`, { amount: '5', reason: 'test' });
    assert.ok(set.status < 300, JSON.stringify(set.body));
    const body = { to: recipient, amount: '4' };
    const scope = {
      apiKeyId: keyId,
      key: 'stale-kept-mint',
      requestHash: requestHashOf(['POST', '/v2/admin/mint', JSON.stringify(body)]),
    };
    // The first attempt as the route runs it, killed once its transaction is kept.
    let stale: Uint8Array | null = null;
    const killedAfterKeep = async (raw: Uint8Array): Promise<Uint8Array> => {
      const kept = await keepPrepared(db, scope, raw);
      assert.ok(kept !== 'conflict');
      stale = kept;
      throw new Error('killed after the keep');
    };
    const ctx = apiContextOf(t.service.parts);
    const request = { to: recipient, amount: 400_000n, minter: keyId };
    await assert.rejects(
      mintTokens(ctx, keys.mint, request, { earlier: async () => null, keep: killedAfterKeep }),
      /killed after the keep/,
    );
    assert.ok(stale !== null);
    // Another mint takes the treasury output the kept one picked, and is answered by the ledger.
    const taking = await send('POST', '/v2/admin/mint', { to: other, amount: '1' });
    assert.equal(taking.status, 200, JSON.stringify(taking.body));

    const retry = await send('POST', '/v2/admin/mint', body, 'stale-kept-mint');
    assert.equal(retry.status, 200, JSON.stringify(retry.body));
    const [ticket] = await db.query<{ submitted_txid: string }>(
      'SELECT submitted_txid FROM tickets WHERE txid = $1',
      [String(retry.body.txid)],
    );
    const rebuilt = await recallPrepared(db, scope);
    assert.ok(rebuilt instanceof Uint8Array);
    assert.notEqual(txidOf(rebuilt), txidOf(stale), 'the kept transaction was replaced');
    assert.equal(ticket?.submitted_txid, txidOf(rebuilt), 'the replacement is the one submitted');

    const again = await send('POST', '/v2/admin/mint', body, 'stale-kept-mint');
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.txid, retry.body.txid);
    const balance = await send('POST', '/v2/balance', [recipient]);
    assert.equal(balance.status, 200, JSON.stringify(balance.body));
    assert.deepEqual(
      (balance.body as unknown as { amt: number }[]).map((b) => b.amt),
      [400_000],
    );
    // 1 token by the other mint and 4 by this one, each charged once.
    const allowance = await send('GET', `/v2/admin/allowances/${keyId}`);
    assert.deepEqual(allowance.body.remaining, { atomic: 0, tokens: '0' });
    const spends = await db.query<{ txid: string }>(
      'SELECT txid FROM mint_allowance_spends WHERE txid = $1',
      [txidOf(stale)],
    );
    assert.equal(spends.length, 0, "the stale transaction's charge was given back");

    // A kept transaction a ticket holds is never replaced.
    const kept = await replaceStalePrepared(db, scope, rebuilt, stale);
    assert.ok(kept instanceof Uint8Array);
    assert.equal(txidOf(kept), txidOf(rebuilt));
  });

  it('moves the charge of a transaction kept nowhere to the one that replaces it', async () => {
    const ctx = apiContextOf(t.service.parts);
    await send('PUT', `/v2/admin/allowances/${keyId}`, { amount: '10', reason: 'test' });
    const spending = allowanceSpending(ctx, keyId, 300_000n, undefined);
    const first = new Uint8Array([1, 2, 3]);
    const second = new Uint8Array([4, 5, 6]);
    await spending.keep(first);
    assert.ok(spending.replace !== undefined);
    assert.equal(await spending.replace(first, second), second);
    const spends = await t.service.parts.db.query<{ txid: string }>(
      'SELECT txid FROM mint_allowance_spends WHERE txid = ANY($1::text[])',
      [[txidOf(first), txidOf(second)]],
    );
    assert.deepEqual(
      spends.map((s) => s.txid),
      [txidOf(second)],
    );
    const allowance = await send('GET', `/v2/admin/allowances/${keyId}`);
    assert.deepEqual(allowance.body.remaining, { atomic: 700_000, tokens: '7' });
  });
});
