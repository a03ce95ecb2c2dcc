// Who owns an address subscription, over real HTTP: the sandbox's public token (everyone's)
// registers none, an admin key lists every key's subscriptions, and the list comes in pages.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { REFERENCE_CLIENT_TOKENS } from '../../src/http/well-known-tokens.js';
import { createApiKey } from '../../src/store/access/api-keys-store.js';
import { startWebhookReceiver, type WebhookReceiver } from '../callbacks/webhook-receiver.js';
import { http } from '../e2e/e2e-http.js';
import { startTestService, type TestService } from '../e2e/support.js';
import { party } from '../support/token-world.js';

describe('who owns an address subscription', () => {
  let t: TestService;
  let receiver: WebhookReceiver;
  let key: string;

  before(async () => {
    t = await startTestService(['--callback-allow', '127.0.0.1']);
    receiver = await startWebhookReceiver();
    key = (
      await createApiKey(t.service.parts.db, t.service.parts.masterKey, { name: 'w', scopes: ['submit'] })
    ).key;
  });
  after(async () => {
    await t?.stop();
    await receiver?.close();
  });

  it("the sandbox's shared public token registers and lists no subscription", async () => {
    const pub = REFERENCE_CLIENT_TOKENS.sandbox;
    const created = await http(t.url, 'POST', `/v2/subscriptions?auth_token=${pub}`, {
      body: { url: receiver.url('/alice-secret-path?token=abc'), addresses: [party('alice sub').address] },
    });
    assert.equal(created.status, 403, created.text);
    assert.equal((created.json as { code: string }).code, 'FORBIDDEN');
    const listed = await http(t.url, 'GET', `/v2/subscriptions?auth_token=${pub}`);
    assert.equal(listed.status, 403, listed.text);
  });

  it('an admin key sees every subscription (docs/clients.md: "an admin key sees all")', async () => {
    const created = await http(t.url, 'POST', '/v2/subscriptions', {
      key,
      body: { url: receiver.url('/w'), addresses: [party('admin list').address] },
    });
    assert.equal(created.status, 201, created.text);
    const id = (created.json as { id: string }).id;
    const one = await http(t.url, 'GET', `/v2/subscriptions/${id}`, { key: t.adminKey });
    assert.equal(one.status, 200, 'the admin key reads it by id');
    const list = await http(t.url, 'GET', '/v2/subscriptions', { key: t.adminKey });
    assert.equal(list.status, 200, list.text);
    const ids = (list.json as { subscriptions: { id: string }[] }).subscriptions.map((s) => s.id);
    assert.ok(ids.includes(id), `the admin list misses another key's subscription: ${JSON.stringify(ids)}`);
  });

  it('lists in pages, in the order the subscriptions were made', async () => {
    const own = (
      await createApiKey(t.service.parts.db, t.service.parts.masterKey, { name: 'p', scopes: ['submit'] })
    ).key;
    const made: string[] = [];
    for (const n of [1, 2, 3]) {
      const created = await http(t.url, 'POST', '/v2/subscriptions', {
        key: own,
        body: { url: receiver.url(`/p${n}`), addresses: [party(`page ${n}`).address] },
      });
      assert.equal(created.status, 201, created.text);
      made.push((created.json as { id: string }).id);
    }
    type Page = { subscriptions: { id: string }[]; next: string | null };
    const first = await http(t.url, 'GET', '/v2/subscriptions?limit=2', { key: own });
    assert.equal(first.status, 200, first.text);
    const one = first.json as Page;
    assert.deepEqual(
      one.subscriptions.map((s) => s.id),
      made.slice(0, 2),
    );
    assert.equal(one.next, made[1]);
    const second = (await http(t.url, 'GET', `/v2/subscriptions?limit=2&after=${one.next}`, { key: own }))
      .json as Page;
    assert.deepEqual(
      second.subscriptions.map((s) => s.id),
      made.slice(2),
    );
    assert.equal(second.next, null);
    const bad = await http(t.url, 'GET', '/v2/subscriptions?after=nope', { key: own });
    assert.equal(bad.status, 400, bad.text);
    assert.equal((bad.json as { code: string }).code, 'INVALID_PARAMETER');
  });
});
