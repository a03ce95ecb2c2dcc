// Callbacks end to end, over real sockets against a real tokenproxy (all roles, PGlite, devnet):
// a receiver on loopback (allow-listed) verifies every signature with the standardwebhooks
// package; a receiver that is down for the whole run of a transfer, with a restart of the
// service in between, gets every event in order once it is back; every SSRF form is refused
// at submission by a service without the allow-list.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseCallbackAllow } from '../../src/callbacks/address-guard.js';
import { createDeliverer } from '../../src/callbacks/deliverer.js';
import { apiContextOf } from '../../src/compose.js';
import type { RunningService } from '../../src/service.js';
import { createApiKey } from '../../src/store/access/api-keys-store.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import { SSRF_URLS } from '../callbacks/ssrf-forms.js';
import {
  expectedSignature,
  startWebhookReceiver,
  verifyWebhook,
  type WebhookReceiver,
} from '../callbacks/webhook-receiver.js';
import { startServiceOn } from '../support/service-in-temp.js';
import { party } from '../support/token-world.js';
import { assertProblem, http, ticketIdOf, transferOf, utxosOf } from './e2e-http.js';
import { eventually, startTestService, type TestService } from './support.js';

const FEE = 100n;
const silentLog = { info() {}, warn() {}, error() {} };

interface Wallet {
  readonly key: string;
  readonly secret: string;
}

async function walletOn(service: RunningService): Promise<Wallet> {
  const created = await createApiKey(service.parts.db, service.parts.masterKey, {
    name: 'wallet',
    scopes: ['submit'],
  });
  return { key: created.key, secret: created.webhookSecret };
}

/** Mints `count` outputs to a fresh holder, mines them, and signs one transfer per output. */
async function signedTransfers(
  service: RunningService,
  wallet: Wallet,
  name: string,
  count: number,
): Promise<string[]> {
  const { parts } = service;
  const holder = party(`${name} holder`);
  for (let i = 0; i < count; i++)
    await mintTokens(apiContextOf(parts), parts.keys.mint, {
      to: holder.address,
      amount: 500_000n + BigInt(i),
    });
  await parts.devnet!.mine(1);
  const outputs = await eventually(async () => {
    const found = await utxosOf(service.url!, wallet.key, holder.address);
    return found.length === count ? found : undefined;
  }, 'the minted outputs');
  return outputs.map((output) =>
    transferOf(parts.ctx.token, {
      from: holder,
      inputs: [output],
      to: party(`${name} recipient`),
      amount: 1_000n,
      fee: FEE,
    }),
  );
}

async function submit(
  service: RunningService,
  wallet: Wallet,
  body: Record<string, string>,
): Promise<string> {
  const answer = await http(service.url!, 'POST', '/v2/transfer', { key: wallet.key, body });
  return ticketIdOf(answer);
}

async function mineUntilMined(
  service: RunningService,
  wallet: Wallet,
  ticketIds: readonly string[],
): Promise<void> {
  for (const id of ticketIds) {
    await eventually(async () => {
      const answer = await http(service.url!, 'GET', `/v2/ticket?ticketID=${id}`, { key: wallet.key });
      const status = (answer.json as { status?: string }).status;
      if (status === 'SUCCESS') await service.parts.devnet!.mine(1);
      return status === 'MINED' ? true : undefined;
    }, `ticket ${id} MINED`);
  }
}

const statusesOf = (receiver: WebhookReceiver, path: string) =>
  receiver.received.filter((r) => r.path === path).map((r) => (r.json as { status: string }).status);

describe('callbacks to a receiver on loopback', () => {
  let t: TestService;
  let receiver: WebhookReceiver;
  let wallet: Wallet;

  before(async () => {
    t = await startTestService(['--callback-allow', '127.0.0.1']);
    receiver = await startWebhookReceiver();
    wallet = await walletOn(t.service);
  });
  after(async () => {
    await t?.stop();
    await receiver?.close();
  });

  it('every callback of a transfer arrives in order and verifies with standardwebhooks', async () => {
    const [byKey, ownSecret] = await signedTransfers(t.service, wallet, 'verify', 2);
    const a = await submit(t.service, wallet, { rawtx: byKey!, callback_url: receiver.url('/a') });
    const b = await submit(t.service, wallet, {
      rawtx: ownSecret!,
      callback_url: receiver.url('/b'),
      callback_secret: 'the client chose this',
    });
    await mineUntilMined(t.service, wallet, [a, b]);
    await eventually(
      async () =>
        statusesOf(receiver, '/a').length === 3 && statusesOf(receiver, '/b').length === 3 ? true : undefined,
      'three callbacks per ticket',
    );
    assert.deepEqual(statusesOf(receiver, '/a'), ['BROADCASTING', 'SUCCESS', 'MINED']);
    assert.deepEqual(statusesOf(receiver, '/b'), ['BROADCASTING', 'SUCCESS', 'MINED']);
    // Every event carries the ticket's cosigned transaction, as the ticket's own answer does.
    const txHexOf = async (id: string) => {
      const answer = await http(t.url, 'GET', `/v2/ticket?ticketID=${id}`, { key: wallet.key });
      return (answer.json as { tx_hex: string }).tx_hex;
    };
    const txHex = { '/a': await txHexOf(a), '/b': await txHexOf(b) };
    assert.ok(txHex['/a'].length > 0 && txHex['/b'].length > 0);
    for (const r of receiver.received) {
      const payload =
        r.path === '/a' ? verifyWebhook(wallet.secret, r) : verifyWebhook('the client chose this', r, 'raw');
      assert.equal((payload as { id: string }).id, r.path === '/a' ? a : b);
      assert.equal((payload as { callback_url: string }).callback_url, receiver.url(r.path));
      assert.equal((payload as { tx_hex: string }).tx_hex, txHex[r.path as '/a' | '/b']);
    }
    const deliveries = await http(t.url, 'GET', `/v2/ticket/${a}/deliveries`, { key: wallet.key });
    assert.equal(deliveries.status, 200, deliveries.text);
    const events = (deliveries.json as { events: { state: string; deliveries: { statusCode: number }[] }[] })
      .events;
    assert.deepEqual(
      events.map((e) => [e.state, e.deliveries.map((d) => d.statusCode)]),
      [
        ['delivered', [204]],
        ['delivered', [204]],
        ['delivered', [204]],
      ],
    );
  });

  it('a callback secret without a callback URL is not kept: nothing to sign', async () => {
    const [rawtx] = await signedTransfers(t.service, wallet, 'secret alone', 1);
    const id = await submit(t.service, wallet, { rawtx: rawtx!, callback_secret: 'no url to sign for' });
    const [row] = await t.service.parts.db.query<{ secret: Uint8Array | null; url: string | null }>(
      'SELECT callback_secret_enc AS secret, callback_url AS url FROM tickets WHERE id = $1',
      [id],
    );
    assert.deepEqual(row, { secret: null, url: null });
  });
});

describe('a receiver down for the whole run of a transfer, and a restart in between', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tokenproxy-e2e-callbacks-'));
  const start = () => startServiceOn(dataDir, ['--log-level', 'warn', '--callback-allow', '127.0.0.1']);
  let service: RunningService | undefined;
  let receiver: WebhookReceiver;
  let wallet: Wallet;
  let ticket: string;

  before(async () => {
    // Down, then back on its port: one no outgoing connection can take meanwhile.
    receiver = await startWebhookReceiver(undefined, 'restartable');
    await receiver.down();
  });
  after(async () => {
    await service?.stop().catch(() => undefined);
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the transfer runs to MINED while every delivery attempt fails', async () => {
    service = await start();
    wallet = await walletOn(service);
    const [rawtx] = await signedTransfers(service, wallet, 'down', 1);
    ticket = await submit(service, wallet, { rawtx: rawtx!, callback_url: receiver.url() });
    await mineUntilMined(service, wallet, [ticket]);
    const attempts = await eventually(async () => {
      const answer = await http(service!.url!, 'GET', `/v2/ticket/${ticket}/deliveries`, { key: wallet.key });
      const events = (answer.json as { events: { deliveries: { error: string | null }[] }[] }).events;
      return events[0]?.deliveries.length ? events : undefined;
    }, 'a failed attempt');
    assert.equal(attempts.length, 3, 'three events in the outbox');
    assert.match(attempts[0]!.deliveries[0]!.error ?? '', /ECONNREFUSED/);
    assert.equal(receiver.received.length, 0);
    await service.stop();
    service = undefined;
  });

  it('after a restart and the receiver back, every event arrives, in order, each once', async () => {
    service = await start();
    await receiver.up();
    // A second deliverer beside the service's own, its clock two hours on: the retries are due.
    const later = createDeliverer({
      db: service.parts.db,
      masterKey: service.parts.masterKey,
      allow: parseCallbackAllow(['127.0.0.1']),
      clock: () => new Date(Date.now() + 2 * 3_600_000),
      log: silentLog,
    });
    try {
      await later.runDueNow();
    } finally {
      await later.stop();
    }
    await eventually(async () => (receiver.received.length >= 3 ? true : undefined), 'the three events');
    assert.deepEqual(
      receiver.received.map((r) => (r.json as { status: string }).status),
      ['BROADCASTING', 'SUCCESS', 'MINED'],
    );
    for (const r of receiver.received) {
      assert.equal((r.json as { id: string }).id, ticket);
      assert.equal(String(r.headers['webhook-signature']), expectedSignature(wallet.secret, r));
    }
    assert.equal(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size, 3);
  });
});

describe('callback URLs refused at submission (no allow-list)', () => {
  let t: TestService;
  let key: string;

  before(async () => {
    t = await startTestService(['--roles', 'api,devnet']);
    key = (
      await createApiKey(t.service.parts.db, t.service.parts.masterKey, { name: 'w', scopes: ['submit'] })
    ).key;
  });
  after(async () => {
    await t?.stop();
  });

  it('every SSRF form answers 400 INVALID_CALLBACK_URL and makes no ticket', async () => {
    for (const url of SSRF_URLS) {
      const answer = await http(t.url, 'POST', '/v2/transfer', {
        key,
        body: { rawtx: 'AAAA', callback_url: url },
      });
      assertProblem(answer, 400, 'INVALID_CALLBACK_URL', /^callback_url refused: /);
    }
    const rows = await t.service.parts.db.query<{ n: string }>(
      'SELECT count(*) AS n FROM tickets WHERE callback_url IS NOT NULL',
    );
    assert.equal(rows[0]?.n, '0');
  });
});
