// Issue 12, "when a thief holds tokens": the operator freezes an address (admin route and CLI),
// the service then refuses to cosign any transfer spending its outputs (403 ADDRESS_FROZEN,
// on /v2/transfer and /v1/transfer) and mints nothing to it; every freeze and unfreeze is
// recorded with who (the admin key id) and why, in an append-only record; status shows what
// frozen addresses hold. Over a real server on a real port.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiContextOf } from '../../src/compose.js';
import { createApiKey, listApiKeys } from '../../src/store/access/api-keys-store.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import { cli } from '../support/cli-child.js';
import { party } from '../support/token-world.js';
import { assertProblem, http, transferOf, utxosOf } from './e2e-http.js';
import { eventually, startTestService, type TestService } from './support.js';

interface FreezeList {
  frozen: { address: string; reason: string; frozenBy: string; balance: { atomic: number } }[];
  total: { atomic: number };
  events: { address: string; action: string; reason: string; actor: string }[];
}

describe('freeze list', () => {
  let t: TestService;
  let key: string;
  let adminId: string;
  const thief = party('freeze thief');
  const victim = party('freeze victim');

  before(async () => {
    t = await startTestService();
    const { parts } = t.service;
    ({ key } = await createApiKey(parts.db, parts.masterKey, { name: 'wallet', scopes: ['read', 'submit'] }));
    adminId = (await listApiKeys(parts.db)).find((k) => k.scopes.includes('admin'))!.id;
    await mintTokens(apiContextOf(parts), parts.keys.mint, { to: thief.address, amount: 50_000n });
    await parts.devnet!.mine(1);
    await eventually(
      async () => ((await utxosOf(t.url, key, thief.address)).length === 1 ? true : undefined),
      'minted',
    );
  });

  after(() => t?.stop());

  const admin = (method: string, path: string, body?: unknown) =>
    http(t.url, method, path, { key: t.adminKey, body });
  const transfer = async (path: '/v2/transfer' | '/v1/transfer') => {
    const inputs = await utxosOf(t.url, key, thief.address);
    const rawtx = transferOf(t.service.parts.ctx.token, {
      from: thief,
      inputs,
      to: victim,
      amount: 1_000n,
      fee: 100n,
    });
    return http(t.url, 'POST', path, { key, body: { rawtx } });
  };

  it('refuses a frozen address’s transfers (403 ADDRESS_FROZEN) and mints nothing to it', async () => {
    const frozen = await admin('POST', '/v2/admin/freezes', {
      address: thief.address,
      reason: 'stolen, case 42',
    });
    assert.equal(frozen.status, 201, frozen.text);
    assert.equal((frozen.json as { frozenBy: string }).frozenBy, adminId);
    const again = await admin('POST', '/v2/admin/freezes', { address: thief.address, reason: 'twice' });
    assert.equal(again.status, 200, again.text);
    assert.equal((again.json as { changed: boolean; reason: string }).changed, false);
    assert.equal((again.json as { reason: string }).reason, 'stolen, case 42');

    assertProblem(await transfer('/v2/transfer'), 403, 'ADDRESS_FROZEN', new RegExp(thief.address));
    assertProblem(await transfer('/v1/transfer'), 403, 'ADDRESS_FROZEN');
    assertProblem(
      await admin('POST', '/v2/admin/mint', { to: thief.address, amount: '1' }),
      403,
      'ADDRESS_FROZEN',
    );
    // The refused transfer reserved nothing: the output is still spendable once unfrozen.
    assert.equal((await utxosOf(t.url, key, thief.address)).length, 1);
  });

  it('lists the frozen address with what it holds; status counts it', async () => {
    const list = (await admin('GET', '/v2/admin/freezes')).json as FreezeList;
    assert.equal(list.frozen.length, 1);
    assert.equal(list.frozen[0]!.address, thief.address);
    assert.equal(list.frozen[0]!.balance.atomic, 50_000);
    assert.equal(list.total.atomic, 50_000);
    const status = (await admin('GET', '/v2/admin/status')).json as {
      frozen: { addresses: number; balance: { atomic: number } };
    };
    assert.deepEqual(status.frozen, { addresses: 1, balance: { atomic: 50_000, tokens: '0.5' } });
  });

  it('refuses to freeze the operator’s own addresses and invalid ones', async () => {
    const token = t.service.parts.ctx.token;
    for (const address of [token.mintAddress, token.feeAddress, token.burnAddress]) {
      assertProblem(
        await admin('POST', '/v2/admin/freezes', { address, reason: 'no' }),
        400,
        'INVALID_PARAMETER',
      );
    }
    assertProblem(
      await admin('POST', '/v2/admin/freezes', { address: 'nope', reason: 'no' }),
      400,
      'INVALID_ADDRESS',
    );
    // Valid addresses no token output can be locked to (issue 29: they were answered 201
    // changed: true, a freeze that could never match).
    for (const address of [
      '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy',
      'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
      'bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr',
    ]) {
      const refused = await admin('POST', '/v2/admin/freezes', { address, reason: 'no' });
      assertProblem(refused, 400, 'ADDRESS_CANNOT_OWN_TOKENS');
    }
    const listed = (await admin('GET', '/v2/admin/freezes')).text;
    assert.ok(!listed.includes('3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy'), 'nothing was recorded');
    assertProblem(
      await admin('POST', '/v2/admin/freezes', { address: victim.address }),
      400,
      'INVALID_REQUEST',
    );
    const wallet = await http(t.url, 'POST', '/v2/admin/freezes', {
      key,
      body: { address: victim.address, reason: 'x' },
    });
    assertProblem(wallet, 403, 'FORBIDDEN');
  });

  it('unfreezes with a reason; transfers pass again; the record keeps both, append-only', async () => {
    assertProblem(await admin('DELETE', `/v2/admin/freezes/${thief.address}`, {}), 400, 'INVALID_REQUEST');
    const un = await admin('DELETE', `/v2/admin/freezes/${thief.address}`, { reason: 'returned' });
    assert.equal(un.status, 200, un.text);
    assert.equal((un.json as { unfrozenBy: string }).unfrozenBy, adminId);
    assertProblem(
      await admin('DELETE', `/v2/admin/freezes/${thief.address}`, { reason: 'again' }),
      404,
      'NOT_FOUND',
    );
    const list = (await admin('GET', '/v2/admin/freezes')).json as FreezeList;
    assert.equal(list.frozen.length, 0);
    assert.deepEqual(
      list.events.map((e) => [e.action, e.address, e.reason, e.actor]),
      [
        ['unfreeze', thief.address, 'returned', adminId],
        ['freeze', thief.address, 'stolen, case 42', adminId],
      ],
    );
    const answer = await transfer('/v2/transfer');
    assert.equal(answer.status, 200, answer.text);

    const { db } = t.service.parts;
    await assert.rejects(db.query("UPDATE address_freeze_events SET reason = 'edited'"), /append-only/);
    await assert.rejects(db.query('DELETE FROM address_freeze_events'), /append-only/);
  });

  it('tokenproxy freeze / freezes / unfreeze do the same from the command line', async () => {
    const connection = ['--url', t.url, '--admin-key', t.adminKey];
    const frozen = await cli(['freeze', victim.address, '--reason', 'court order 7', ...connection]);
    assert.equal(frozen.code, 0, frozen.stderr);
    assert.equal(JSON.parse(frozen.stdout).frozenBy, adminId);
    const listed = await cli(['freezes', ...connection]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(
      (JSON.parse(listed.stdout) as FreezeList).frozen.map((f) => [f.address, f.reason]),
      [[victim.address, 'court order 7']],
    );
    const missing = await cli(['freeze', victim.address, ...connection]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /--reason/);
    const un = await cli(['unfreeze', victim.address, '--reason', 'lifted', ...connection]);
    assert.equal(un.code, 0, un.stderr);
    const status = await cli(['status', ...connection]);
    assert.equal(JSON.parse(status.stdout).frozen.addresses, 0);
  });
});
