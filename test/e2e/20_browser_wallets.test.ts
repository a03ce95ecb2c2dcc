// The reference client as it ships and browser wallets: the client with no apiKey (it sends
// its built-in public token) reads anonymously; its documented history paging (first page,
// then nextScore) walks an address's history once in both orders; CORS answers browser
// preflights on the public API and never on admin routes; large answers are compressed when
// asked and still decode.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Mnee from '@mnee/ts-sdk';
import { apiContextOf } from '../../src/compose.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import { party } from '../support/token-world.js';
import { http } from './e2e-http.js';
import { eventually, redirectClientTo, startTestService, type TestService } from './support.js';

const ENTRIES = 7;
const PAGE = 3;

describe('browser wallets and the reference client as it ships', () => {
  let t: TestService;
  let restore: () => void;
  const carol = party('paging carol');
  before(async () => {
    t = await startTestService();
    restore = redirectClientTo(t.url);
    const { parts } = t.service;
    for (let i = 0; i < ENTRIES; i++) {
      await mintTokens(apiContextOf(parts), parts.keys.mint, {
        to: carol.address,
        amount: BigInt(100_000 + i),
      });
    }
    await parts.devnet!.mine(1);
    await eventually(async () => {
      const rows = await parts.db.query<{ n: string }>(
        "SELECT count(*) AS n FROM tickets WHERE status <> 'MINED'",
      );
      return rows[0]?.n === '0' ? true : undefined;
    }, 'the mints MINED');
  });
  after(async () => {
    restore?.();
    await t?.stop();
  });

  it('the client with no apiKey reads config and balance (its public token reads anonymously)', async () => {
    const mnee = new Mnee({ environment: 'sandbox' });
    const config = await mnee.config();
    assert.equal(config.tokenId, t.service.parts.ctx.token.tokenId);
    const balance = await mnee.balance(carol.address);
    assert.equal(balance.amount, ENTRIES * 100_000 + (ENTRIES * (ENTRIES - 1)) / 2);
    // In sandbox the public token submits too (test/e2e/sandbox-no-setup.test.ts): past the key
    // check, a transaction that does not parse is refused as such.
    const submit = await http(t.url, 'POST', '/v2/transfer?auth_token=54f1fd1688ba66a58a67675b82feb93e', {
      body: { rawtx: 'AAAA' },
    });
    assert.equal(submit.status, 400);
  });

  for (const order of ['asc', 'desc'] as const) {
    it(`the client's history paging (first page, then nextScore) walks every entry once, ${order}`, async () => {
      const mnee = new Mnee({ environment: 'sandbox', apiKey: t.adminKey });
      const seen: string[] = [];
      const scores: number[] = [];
      let from: number | undefined;
      for (let page = 0; page < 10; page++) {
        const answer = await mnee.recentTxHistory(carol.address, from, PAGE, order);
        if (answer.history.length === 0) break;
        assert.ok(answer.history.length <= PAGE);
        for (const entry of answer.history) {
          seen.push(entry.txid);
          scores.push(entry.score);
        }
        from = answer.nextScore;
      }
      assert.equal(seen.length, ENTRIES, `entries walked: ${seen.length}`);
      assert.equal(new Set(seen).size, ENTRIES, 'each entry once');
      const sorted = [...scores].sort((a, b) => (order === 'asc' ? a - b : b - a));
      assert.deepEqual(scores, sorted, `in ${order} order`);
    });
  }

  it('CORS: the public API answers preflights and carries Access-Control-Allow-Origin; admin routes never', async () => {
    const origin = 'https://wallet.example';
    const preflight = await http(t.url, 'OPTIONS', '/v2/balance', {
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
    assert.match(String(preflight.headers.get('access-control-allow-methods')), /POST/);
    assert.equal(preflight.headers.get('access-control-allow-credentials'), null);
    const read = await http(t.url, 'GET', '/v1/config', { headers: { origin } });
    assert.equal(read.headers.get('access-control-allow-origin'), '*');
    assert.match(String(read.headers.get('access-control-expose-headers')), /x-request-id/);
    const denied = await http(t.url, 'GET', '/v1/config?auth_token=not-a-key', { headers: { origin } });
    assert.equal(denied.status, 401);
    assert.equal(denied.headers.get('access-control-allow-origin'), '*', 'a browser can read the 401');

    const adminPreflight = await http(t.url, 'OPTIONS', '/v2/admin/keys', {
      headers: { origin, 'access-control-request-method': 'POST' },
    });
    assert.notEqual(adminPreflight.status, 204);
    assert.equal(adminPreflight.headers.get('access-control-allow-origin'), null);
    const admin = await http(t.url, 'GET', '/v2/admin/status', { key: t.adminKey, headers: { origin } });
    assert.equal(admin.status, 200);
    assert.equal(admin.headers.get('access-control-allow-origin'), null);
    const consolePage = await http(t.url, 'GET', '/console', { headers: { origin } });
    assert.equal(consolePage.headers.get('access-control-allow-origin'), null);
  });

  it('compresses large answers when asked, not small ones; the client still decodes', async () => {
    const raw = await fetch(`${t.url}/openapi.json`, { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(raw.headers.get('content-encoding'), 'gzip');
    assert.equal(((await raw.json()) as { openapi: string }).openapi, '3.1.0');
    const small = await fetch(`${t.url}/healthz`, { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(small.headers.get('content-encoding'), null);
    const plain = await http(t.url, 'GET', '/openapi.json', { headers: { 'accept-encoding': 'identity' } });
    assert.equal(plain.headers.get('content-encoding'), null);
    const mnee = new Mnee({ environment: 'sandbox', apiKey: t.adminKey });
    const utxos = await mnee.getUtxos(carol.address);
    assert.equal(utxos.length, ENTRIES);
  });
});
