// Address webhooks with three deliverer instances on one PostgreSQL (each runs a dispatcher and
// a sender) and an api and a tracker instance of their own, on ARC: mints to three watched
// addresses, each seen unconfirmed then mined, reach the receiver once each (no webhook-id
// twice, one event per change) and verify with standardwebhooks. Runs only when
// TEST_DATABASE_URL is set.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiContextOf } from '../../src/compose.js';
import { createApiKey } from '../../src/store/access/api-keys-store.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import { startWebhookReceiver, verifyWebhook, type WebhookReceiver } from '../callbacks/webhook-receiver.js';
import { http } from '../e2e/e2e-http.js';
import { eventually } from '../e2e/support.js';
import { type Instance, sharedWorld } from '../support/ledger-world.js';
import { testDatabaseUrl } from '../support/test-databases.js';
import { party } from '../support/token-world.js';

const MINTS = 4;

describe('address webhooks on three deliverer instances and one PostgreSQL', {
  skip: testDatabaseUrl === undefined,
}, () => {
  const world = sharedWorld('webhooks scale');
  const holders = Array.from({ length: 3 }, (_, i) => party(`webhooks scale holder ${i}`));
  let api: Instance;
  let receiver: WebhookReceiver;

  before(async () => {
    receiver = await startWebhookReceiver();
    api = await world.start('api', ['--callback-allow', '127.0.0.1']);
    await world.ledger.devnet.mine(1);
    await world.start('tracker');
    for (let i = 0; i < 3; i++)
      await world.start('deliverer', ['--callback-allow', '127.0.0.1', '--subscription-poll-ms', '20']);
  });
  // The receiver's listening socket would otherwise keep the file's process alive after its tests.
  after(() => receiver?.close());

  it('each change is one event, delivered once, whichever instance made and sent it', async () => {
    const { parts } = api.service;
    const key = await createApiKey(parts.db, parts.masterKey, { name: 'scale wallet', scopes: ['submit'] });
    const created = await http(api.url, 'POST', '/v2/subscriptions', {
      key: key.key,
      body: { url: receiver.url('/scale'), addresses: holders.map((h) => h.address) },
    });
    assert.equal(created.status, 201, created.text);
    const secret = (created.json as { secret: string }).secret;
    const types = () => receiver.received.map((r) => (r.json as { type: string }).type);
    const count = (type: string) => types().filter((t) => t === type).length;
    // One after another: mints take the treasury's outputs in turn.
    for (let i = 0; i < MINTS; i++)
      for (const holder of holders)
        await mintTokens(apiContextOf(parts), parts.keys.mint, {
          to: holder.address,
          amount: 1_000n + BigInt(i),
        });
    const all = holders.length * MINTS;
    await eventually(
      async () => (count('tokens.received.unconfirmed') >= all ? true : undefined),
      'every mint unconfirmed',
      600,
    );
    await world.ledger.devnet.mine(1);
    await eventually(
      async () => (count('tokens.received.confirmed') >= all ? true : undefined),
      'every mint confirmed',
      600,
    );
    // A moment for a duplicate to show up, were there one.
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(count('tokens.received.unconfirmed'), all);
    assert.equal(count('tokens.received.confirmed'), all);
    const ids = receiver.received.map((r) => String(r.headers['webhook-id']));
    assert.equal(new Set(ids).size, ids.length, 'no webhook-id twice');
    for (const request of receiver.received) verifyWebhook(secret, request);
    const rows = await parts.db.query<{ n: string }>('SELECT count(*) AS n FROM subscription_events');
    assert.equal(Number(rows[0]!.n), 2 * all);
  });
});
