// Access at the HTTP edge, over real HTTP: an `audit` key reads no callback URL whole through the
// console search (only the submitting key and admin keys do, as on GET /v2/ticket), and a key
// refused for its scope (403) is counted by its own rate limit like any other request.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiContextOf } from '../../src/compose.js';
import { createApiKey } from '../../src/store/access/api-keys-store.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import { transferOf, utxosOf } from '../e2e/e2e-http.js';
import { eventually, startTestService, type TestService } from '../e2e/support.js';
import { party } from '../support/token-world.js';

async function raw(url: string, init: RequestInit = {}) {
  const res = await fetch(url, init);
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, text, json, headers: res.headers };
}

describe('access at the edge', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService(['--callback-allow', '127.0.0.1', '--no-anonymous-read']);
  });
  after(async () => t?.stop());

  it('an audit key (read-only admin view) does not see a ticket callback URL whole (callbacks.md "Who sees the callback URL")', async () => {
    const { parts } = t.service;
    const submitter = (
      await createApiKey(parts.db, parts.masterKey, { name: 's', scopes: ['read', 'submit'] })
    ).key;
    const auditor = (await createApiKey(parts.db, parts.masterKey, { name: 'a', scopes: ['audit'] })).key;
    const holder = party('access cb holder');
    const to = party('access cb to');
    await mintTokens(apiContextOf(parts), parts.keys.mint, { to: holder.address, amount: 500_000n });
    await parts.devnet!.mine(1);
    const outputs = await eventually(async () => {
      const o = await utxosOf(t.url, submitter, holder.address);
      return o.length > 0 ? o : undefined;
    }, 'the mint');
    const rawtx = transferOf(parts.ctx.token, {
      from: holder,
      inputs: [outputs[0]!],
      to,
      amount: 1000n,
      fee: 100n,
    });
    const secretUrl = 'http://127.0.0.1:9/hook?token=SECRET-CALLBACK-TOKEN';
    const sent = await raw(`${t.url}/v2/transfer`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${submitter}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify({ rawtx, callback_url: secretUrl }),
    });
    assert.equal(sent.status, 200, sent.text);
    const ticketId = (sent.json as { ticketId: string }).ticketId;
    // The ticket route redacts it for the audit key, as documented...
    const ticket = await raw(`${t.url}/v2/ticket?ticketID=${ticketId}`, {
      headers: { authorization: `Bearer ${auditor}` },
    });
    assert.equal(ticket.status, 200, ticket.text);
    assert.equal((ticket.json as { callback_url: string }).callback_url, '[REDACTED]');
    const txid = (ticket.json as { tx_id: string }).tx_id;
    // ...and the deliveries route refuses it (owner or admin only)...
    const deliveries = await raw(`${t.url}/v2/ticket/${ticketId}/deliveries`, {
      headers: { authorization: `Bearer ${auditor}` },
    });
    assert.equal(deliveries.status, 403, deliveries.text);
    // ...but the console search by the (public) txid hands the same key the URL whole.
    const search = await raw(`${t.url}/v2/admin/console/search?q=${txid}`, {
      headers: { authorization: `Bearer ${auditor}` },
    });
    assert.equal(search.status, 200, search.text);
    assert.ok(
      !search.text.includes('SECRET-CALLBACK-TOKEN'),
      `an audit key read the callback URL whole through the console search: ${search.text.slice(0, 400)}`,
    );
  });

  it('a key over its own rate limit is limited on routes its scope does not reach too', async () => {
    const { parts } = t.service;
    const key = (
      await createApiKey(parts.db, parts.masterKey, { name: 'rl', scopes: ['read'], rateLimit: 3 })
    ).key;
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await raw(`${t.url}/v2/admin/status`, { headers: { authorization: `Bearer ${key}` } });
      statuses.push(r.status);
    }
    assert.ok(
      statuses.includes(429),
      `20 requests of a key limited to 3 per window, never limited: ${statuses.join(',')}`,
    );
  });
});
