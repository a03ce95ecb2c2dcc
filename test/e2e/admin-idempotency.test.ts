// Idempotency-Key on the admin writes that move value (mint, burn, funding payments, seizures): the same
// key and body get the first answer again (one ticket, Idempotent-Replayed: true), the same key
// with another body a 422, no key a new write each time. A retry after a crash finds the
// transaction its first attempt kept (migration 016) and submits it again: one mint.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiContextOf } from '../../src/compose.js';
import { keepPrepared, requestHashOf } from '../../src/store/access/idempotency-store.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import { party } from '../support/token-world.js';
import { startTestService, type TestService } from './support.js';

describe('admin writes honour Idempotency-Key', () => {
  let t: TestService;
  const recipient = party('admin idempotency recipient').address;

  const post = async (path: string, body: unknown, key?: string) => {
    const res = await fetch(`${t.url}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${t.adminKey}`,
        'content-type': 'application/json',
        ...(key !== undefined && { 'idempotency-key': key }),
      },
      body: JSON.stringify(body),
    });
    return {
      status: res.status,
      replayed: res.headers.get('idempotent-replayed'),
      body: (await res.json()) as Record<string, unknown>,
    };
  };
  const ticketCount = async () =>
    Number((await t.service.parts.db.query<{ n: string }>('SELECT count(*) AS n FROM tickets'))[0]?.n ?? 0);

  before(async () => {
    t = await startTestService();
  });
  after(async () => {
    await t?.stop();
  });

  it('mint: the same key and body mint once and answer the first answer again', async () => {
    const before = await ticketCount();
    const first = await post('/v2/admin/mint', { to: recipient, amount: '1.5' }, 'mint-once-1');
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const again = await post('/v2/admin/mint', { to: recipient, amount: '1.5' }, 'mint-once-1');
    assert.equal(again.status, 200);
    assert.equal(again.replayed, 'true');
    assert.deepEqual(again.body, first.body);
    assert.equal(await ticketCount(), before + 1, 'one ticket for two requests');
  });

  it('mint: the same key with another body is a 422 IDEMPOTENCY_CONFLICT', async () => {
    await post('/v2/admin/mint', { to: recipient, amount: '2' }, 'mint-conflict');
    const other = await post('/v2/admin/mint', { to: recipient, amount: '3' }, 'mint-conflict');
    assert.equal(other.status, 422);
    assert.equal(other.body.code, 'IDEMPOTENCY_CONFLICT');
  });

  it('mint without a key mints each time', async () => {
    const before = await ticketCount();
    const a = await post('/v2/admin/mint', { to: recipient, amount: '1' });
    const b = await post('/v2/admin/mint', { to: recipient, amount: '1' });
    assert.notEqual(a.body.txid, b.body.txid);
    assert.equal(await ticketCount(), before + 2);
  });

  it('burn: the same key and body burn once', async () => {
    const before = await ticketCount();
    const first = await post('/v2/admin/burn', { amount: '0.5' }, 'burn-once');
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const again = await post('/v2/admin/burn', { amount: '0.5' }, 'burn-once');
    assert.equal(again.replayed, 'true');
    assert.equal(again.body.txid, first.body.txid);
    assert.equal(await ticketCount(), before + 1);
  });

  it('seizure: the same key and body seize once; another body under the key is a 422', async () => {
    const thief = party('admin idempotency thief').address;
    const owner = party('admin idempotency owner').address;
    const minted = await post('/v2/admin/mint', { to: thief, amount: '2' }, 'seize-funding');
    assert.equal(minted.status, 200, JSON.stringify(minted.body));
    const frozen = await post('/v2/admin/freezes', { address: thief, reason: 'stolen' });
    assert.ok(frozen.status < 300, JSON.stringify(frozen.body));
    const order = {
      reference: 'idempotent order 1',
      reason: 'stolen',
      outpoints: [`${minted.body.txid as string}_0`],
      reissueTo: owner,
    };
    const before = await ticketCount();
    const first = await post('/v2/admin/seizures', order, 'seize-once');
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const again = await post('/v2/admin/seizures', order, 'seize-once');
    assert.equal(again.status, 201, 'the first answer again, its status too');
    assert.equal(again.replayed, 'true');
    assert.deepEqual(again.body, first.body);
    assert.equal(await ticketCount(), before + 1, 'one reissue for two requests');
    const other = await post('/v2/admin/seizures', { ...order, reason: 'other' }, 'seize-once');
    assert.equal(other.status, 422);
    assert.equal(other.body.code, 'IDEMPOTENCY_CONFLICT');
  });

  it('a retry whose first attempt kept its transaction and died submits that one: one mint', async () => {
    // The first attempt: its transaction kept and its ticket committed, its process killed before
    // an answer was kept (the use case run directly keeps no answer: that state).
    const body = { to: recipient, amount: '4' };
    const keys = await t.service.parts.db.query<{ id: string }>(
      "SELECT id FROM api_keys WHERE 'admin' = ANY(scopes) LIMIT 1",
    );
    const scope = {
      apiKeyId: keys[0]!.id,
      key: 'mint-crashed',
      requestHash: requestHashOf(['POST', '/v2/admin/mint', JSON.stringify(body)]),
    };
    const { db, keys: operatorKeys } = t.service.parts;
    const ctx = apiContextOf(t.service.parts);
    const first = await mintTokens(
      ctx,
      operatorKeys.mint,
      { to: recipient, amount: 400_000n },
      {
        earlier: async () => null,
        keep: async (raw) => {
          const kept = await keepPrepared(db, scope, raw);
          assert.ok(kept !== 'conflict');
          return kept;
        },
      },
    );
    const before = await ticketCount();
    const retry = await post('/v2/admin/mint', body, 'mint-crashed');
    assert.equal(retry.status, 200, JSON.stringify(retry.body));
    assert.equal(retry.body.txid, first.txid, 'the retry answers the first mint');
    assert.equal(retry.body.ticketId, first.ticketId);
    assert.equal(await ticketCount(), before, 'no second mint');
    const otherBody = await post('/v2/admin/mint', { ...body, amount: '5' }, 'mint-crashed');
    assert.equal(otherBody.status, 422, "the kept transaction is this request's, not another body's");
  });
});
