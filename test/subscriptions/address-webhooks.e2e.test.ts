// Address webhooks end to end over real sockets, against a real tokenproxy (all roles, PGlite,
// the devnet): a wallet's key registers a subscription for two addresses; a mint, a transfer
// between them, its block, a reorg of that block and the block again each arrive at a receiver
// on loopback as signed events (verified with the standardwebhooks package) carrying txid,
// score, direction, amounts, counterparties, status and block height; the replay list pages by
// score over the same events; a test event and a redelivery arrive on demand; a private URL is
// refused at registration (SSRF guard) and an address list past its bound with a stable code.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiContextOf } from '../../src/compose.js';
import type { KnownTokenOutput } from '../../src/domain/validate-transfer.js';
import { createApiKey } from '../../src/store/access/api-keys-store.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import {
  type ReceivedWebhook,
  startWebhookReceiver,
  verifyWebhook,
  type WebhookReceiver,
} from '../callbacks/webhook-receiver.js';
import { assertProblem, http, ticketIdOf, transferOf, utxosOf } from '../e2e/e2e-http.js';
import { eventually, startTestService, type TestService } from '../e2e/support.js';
import { party } from '../support/token-world.js';

interface EventBody {
  type: string;
  timestamp: string;
  data: Record<string, unknown> & { address?: string; status?: string; txid?: string; score: string };
}

describe('address webhooks end to end', () => {
  let t: TestService;
  let receiver: WebhookReceiver;
  let key: string;
  let otherKey: string;
  let secret: string;
  let subscriptionId: string;
  const holder = party('webhooks holder');
  const recipient = party('webhooks recipient');
  let transferTxid: string;

  const bodies = (path = '/w'): EventBody[] =>
    receiver.received.filter((r) => r.path === path).map((r) => r.json as unknown as EventBody);
  const seen = (type: string, address: string, path = '/w') =>
    bodies(path).filter((b) => b.type === type && b.data.address === address);
  const arrived = (what: string, probe: () => boolean) =>
    eventually(async () => (probe() ? true : undefined), what, 300);

  before(async () => {
    t = await startTestService([
      '--callback-allow',
      '127.0.0.1',
      '--subscription-poll-ms',
      '50',
      '--subscription-max-addresses',
      '3',
    ]);
    receiver = await startWebhookReceiver();
    const db = t.service.parts.db;
    key = (await createApiKey(db, t.service.parts.masterKey, { name: 'wallet', scopes: ['submit'] })).key;
    otherKey = (await createApiKey(db, t.service.parts.masterKey, { name: 'other', scopes: ['submit'] })).key;
  });
  after(async () => {
    await t?.stop();
    await receiver?.close();
  });

  it('registers a subscription: the secret once, the SSRF guard and the address bound', async () => {
    const created = await http(t.url, 'POST', '/v2/subscriptions', {
      key,
      body: { url: receiver.url('/w'), addresses: [holder.address, recipient.address], description: 'e2e' },
    });
    assert.equal(created.status, 201, created.text);
    const json = created.json as { id: string; secret: string; addressCount: number; enabled: boolean };
    assert.match(json.secret, /^whsec_/);
    assert.equal(json.addressCount, 2);
    assert.equal(json.enabled, true);
    subscriptionId = json.id;
    secret = json.secret;
    const read = await http(t.url, 'GET', `/v2/subscriptions/${subscriptionId}`, { key });
    assert.equal(read.status, 200);
    assert.equal((read.json as Record<string, unknown>).secret, undefined, 'the secret is shown once');
    // Another wallet's key neither sees nor changes it: every operation answers as if it did not exist.
    for (const [method, path, body] of [
      ['GET', '', undefined],
      ['PATCH', '', { enabled: false }],
      ['GET', '/addresses', undefined],
      ['POST', '/addresses', { add: [party('intruder').address] }],
      ['GET', '/events', undefined],
      ['DELETE', '', undefined],
    ] as const) {
      const answer = await http(t.url, method, `/v2/subscriptions/${subscriptionId}${path}`, {
        key: otherKey,
        ...(body !== undefined && { body }),
      });
      assert.equal(answer.status, 404, `${method} ${path}: ${answer.text}`);
    }
    const still = (await http(t.url, 'GET', `/v2/subscriptions/${subscriptionId}`, { key })).json as {
      enabled: boolean;
      addressCount: number;
    };
    assert.equal(still.enabled, true);
    assert.equal(still.addressCount, 2);

    for (const url of [
      'http://10.1.2.3/hook',
      'http://192.168.0.7:8080/x',
      'http://169.254.169.254/latest',
    ]) {
      const refused = await http(t.url, 'POST', '/v2/subscriptions', { key, body: { url, addresses: [] } });
      assertProblem(refused, 400, 'INVALID_CALLBACK_URL');
    }
    const [a, b] = [party('bound a').address, party('bound b').address];
    const over = await http(t.url, 'POST', `/v2/subscriptions/${subscriptionId}/addresses`, {
      key,
      body: { add: [a, b] },
    });
    assertProblem(over, 422, 'SUBSCRIPTION_LIMIT');
    const tooMany = await http(t.url, 'POST', '/v2/subscriptions', {
      key,
      body: { url: receiver.url('/x'), addresses: [a, b, holder.address, recipient.address] },
    });
    assertProblem(tooMany, 422, 'SUBSCRIPTION_LIMIT');
    const bad = await http(t.url, 'POST', `/v2/subscriptions/${subscriptionId}/addresses`, {
      key,
      body: { add: ['1NotAnAddress'] },
    });
    assertProblem(bad, 400, 'INVALID_ADDRESS');
    const changed = await http(t.url, 'POST', `/v2/subscriptions/${subscriptionId}/addresses`, {
      key,
      body: { add: [a], remove: [recipient.address] },
    });
    assert.deepEqual(changed.json, { subscriptionId, count: 2 });
    const replaced = await http(t.url, 'POST', `/v2/subscriptions/${subscriptionId}/addresses`, {
      key,
      body: { replace: [holder.address, recipient.address] },
    });
    assert.deepEqual(replaced.json, { subscriptionId, count: 2 });
    // Hostile input is a 4xx, never a 500 (http() fails on a 500).
    for (const [method, path, body] of [
      ['GET', `/v2/subscriptions/${subscriptionId}/events/%00`, undefined],
      ['GET', '/v2/subscriptions/%00', undefined],
      ['GET', `/v2/subscriptions/${subscriptionId}/events?from=99999999999999999999`, undefined],
      ['PATCH', `/v2/subscriptions/${subscriptionId}`, { description: 'a\u0000b' }],
      ['POST', `/v2/subscriptions/${subscriptionId}/addresses`, { remove: ['a\u0000b'] }],
      ['POST', '/v2/subscriptions', { url: 'http://127.0.0.1/\u0000', events: ['nope'] }],
    ] as const) {
      const answer = await http(t.url, method, path, { key, ...(body !== undefined && { body }) });
      assert.ok(answer.status >= 400 && answer.status < 500, `${method} ${path}: ${answer.status}`);
    }
    const list = await http(t.url, 'GET', `/v2/subscriptions/${subscriptionId}/addresses`, { key });
    assert.deepEqual(
      (list.json as { addresses: string[] }).addresses,
      [holder.address, recipient.address].sort(),
    );
  });

  it('a mint, a transfer, its block, a reorg and the block again: signed events with what a wallet needs', async () => {
    const { parts } = t.service;
    await mintTokens(apiContextOf(parts), parts.keys.mint, { to: holder.address, amount: 100_000n });
    await arrived(
      'the mint unconfirmed',
      () => seen('tokens.received.unconfirmed', holder.address).length === 1,
    );
    await parts.devnet!.mine(1);
    await arrived('the mint confirmed', () => seen('tokens.received.confirmed', holder.address).length === 1);
    const [output] = await eventually(async () => {
      const found: KnownTokenOutput[] = await utxosOf(t.url, key, holder.address);
      return found.length === 1 ? found : undefined;
    }, 'the minted output');
    const rawtx = transferOf(parts.ctx.token, {
      from: holder,
      inputs: [output!],
      to: recipient,
      amount: 30_000n,
      fee: 100n,
    });
    const ticketId = ticketIdOf(await http(t.url, 'POST', '/v2/transfer', { key, body: { rawtx } }));
    await arrived(
      'the transfer unconfirmed',
      () => seen('tokens.received.unconfirmed', recipient.address).length === 1,
    );
    await arrived('the transfer sent', () => seen('tokens.sent.unconfirmed', holder.address).length === 1);
    const sent = seen('tokens.sent.unconfirmed', holder.address)[0]!.data;
    transferTxid = sent.txid!;
    const ticket = await http(t.url, 'GET', `/v2/ticket?ticketID=${ticketId}`, { key });
    assert.equal((ticket.json as { tx_id: string }).tx_id, transferTxid);
    assert.equal(sent.direction, 'sent');
    assert.equal(sent.amount, '30100', 'what the holder spent less its change');
    assert.equal(sent.tokens, '0.301');
    assert.ok((sent.counterparties as string[]).includes(recipient.address));
    assert.equal(sent.blockHeight, null);

    await parts.devnet!.mine(1);
    await arrived(
      'the transfer confirmed',
      () => seen('tokens.received.confirmed', recipient.address).length === 1,
    );
    const confirmed = seen('tokens.received.confirmed', recipient.address)[0]!.data;
    assert.deepEqual(
      { ...confirmed, score: undefined, blockHash: undefined, blockTime: undefined },
      {
        subscriptionId,
        txid: transferTxid,
        score: undefined,
        address: recipient.address,
        direction: 'received',
        amount: '30000',
        tokens: '0.3',
        counterparties: [holder.address],
        status: 'confirmed',
        blockHeight: (await parts.devnet!.tip()).height,
        blockHash: undefined,
        blockTime: undefined,
      },
    );
    assert.ok(
      BigInt(confirmed.score) > BigInt(seen('tokens.received.unconfirmed', recipient.address)[0]!.data.score),
    );

    await parts.devnet!.reorg(1, { leaveInMempool: true });
    await arrived('the reorg', () => seen('tokens.received.reorged', recipient.address).length === 1);
    await arrived('the reorg, sent', () => seen('tokens.sent.reorged', holder.address).length === 1);
    assert.equal(seen('tokens.received.reorged', recipient.address)[0]!.data.blockHeight, null);
    await parts.devnet!.mine(1);
    await arrived('mined again', () => seen('tokens.received.confirmed', recipient.address).length === 2);

    const ours = receiver.received.filter((r) => r.path === '/w');
    for (const request of ours) verifyWebhook(secret, request);
    const ids = ours.map((r) => String(r.headers['webhook-id']));
    assert.equal(new Set(ids).size, ids.length, 'each event once');
    const tampered: ReceivedWebhook = { ...ours[0]!, body: ours[0]!.body.replace('tokens', 'tokenz') };
    assert.throws(() => verifyWebhook(secret, tampered));
  });

  it('the replay list pages by score over the same events; an event shows its deliveries', async () => {
    const ours = receiver.received.filter((r) => r.path === '/w');
    const delivered = new Set(ours.map((r) => String(r.headers['webhook-id'])));
    for (const order of ['asc', 'desc'] as const) {
      const listed: string[] = [];
      let from = '0';
      for (let page = 0; page < 50; page++) {
        const answer = await http(
          t.url,
          'GET',
          `/v2/subscriptions/${subscriptionId}/events?order=${order}&limit=2&from=${from}`,
          { key },
        );
        const json = answer.json as {
          events: { webhookId: string; score: string; state: string }[];
          nextScore: string | null;
        };
        listed.push(...json.events.map((e) => e.webhookId));
        if (json.nextScore === null) break;
        from = json.nextScore;
      }
      assert.deepEqual(new Set(listed), delivered, order);
      assert.equal(listed.length, delivered.size, `${order}: none twice`);
    }
    const first = String(ours[0]!.headers['webhook-id']);
    const event = await http(t.url, 'GET', `/v2/subscriptions/${subscriptionId}/events/${first}`, { key });
    const json = event.json as { state: string; deliveries: { statusCode: number }[] };
    assert.equal(json.state, 'delivered');
    assert.equal(json.deliveries[0]?.statusCode, 204);
  });

  it('a test event and a redelivery on demand', async () => {
    const test = await http(t.url, 'POST', `/v2/subscriptions/${subscriptionId}/test`, { key });
    assert.equal(test.status, 202);
    const testId = (test.json as { webhookId: string }).webhookId;
    await arrived('the test event', () => receiver.received.some((r) => r.headers['webhook-id'] === testId));
    const got = receiver.received.find((r) => r.headers['webhook-id'] === testId)!;
    assert.equal((verifyWebhook(secret, got) as { type: string }).type, 'webhook.test');
    const again = await http(
      t.url,
      'POST',
      `/v2/subscriptions/${subscriptionId}/events/${testId}/redeliver`,
      { key },
    );
    assert.equal(again.status, 202);
    await arrived(
      'the redelivery',
      () => receiver.received.filter((r) => r.headers['webhook-id'] === testId).length === 2,
    );
  });

  it('disabled by its owner, enabled again; deleted', async () => {
    const off = await http(t.url, 'PATCH', `/v2/subscriptions/${subscriptionId}`, {
      key,
      body: { enabled: false },
    });
    assert.equal((off.json as { enabled: boolean; disabledReason: string }).enabled, false);
    const on = await http(t.url, 'PATCH', `/v2/subscriptions/${subscriptionId}`, {
      key,
      body: { enabled: true },
    });
    assert.deepEqual(
      [(on.json as { enabled: boolean }).enabled, (on.json as { disabledReason: unknown }).disabledReason],
      [true, null],
    );
    const listed = await http(t.url, 'GET', '/v2/subscriptions', { key });
    assert.equal((listed.json as { subscriptions: unknown[] }).subscriptions.length, 1);
    assert.equal((await http(t.url, 'DELETE', `/v2/subscriptions/${subscriptionId}`, { key })).status, 200);
    assert.equal((await http(t.url, 'GET', `/v2/subscriptions/${subscriptionId}`, { key })).status, 404);
  });
});
