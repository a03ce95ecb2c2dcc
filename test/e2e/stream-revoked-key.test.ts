// A live feed stream opened with an API key that is then revoked, over a real socket: the stream
// ends at the next heartbeat (the key is refused from then on, and a stream is a request that
// goes on), and records written after the revocation never reach it. A stream of a live key
// stays open.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiContextOf } from '../../src/compose.js';
import { createApiKey } from '../../src/store/access/api-keys-store.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import { party } from '../support/token-world.js';
import { http } from './e2e-http.js';
import { startTestService, type TestService } from './support.js';

/** Reads a stream's text until it ends; `ended` says whether the server closed it. */
function follow(url: string) {
  const ac = new AbortController();
  const seen = { text: '', ended: false };
  const done = (async () => {
    const res = await fetch(url, { signal: ac.signal });
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    try {
      for (;;) {
        const { value, done: end } = await reader.read();
        if (end) break;
        seen.text += Buffer.from(value).toString('utf8');
      }
      seen.ended = true;
    } catch {}
  })();
  const stop = async () => {
    ac.abort();
    await done.catch(() => undefined);
  };
  return { seen, stop };
}

describe('a live feed stream of a revoked key', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService(['--stream-heartbeat-ms', '1000']);
  });
  after(() => t?.stop());

  it('ends at the next heartbeat, and gets nothing written after the revocation', async () => {
    const { parts } = t.service;
    const revoked = await createApiKey(parts.db, parts.masterKey, {
      name: 'revoked streamer',
      scopes: ['read'],
    });
    const kept = await createApiKey(parts.db, parts.masterKey, { name: 'kept streamer', scopes: ['read'] });
    const gone = follow(`${t.url}/v2/sync/stream?auth_token=${revoked.key}`);
    const live = follow(`${t.url}/v2/sync/stream?auth_token=${kept.key}`);
    try {
      await new Promise((r) => setTimeout(r, 300));
      const answer = await http(t.url, 'DELETE', `/v2/admin/keys/${revoked.id}`, { key: t.adminKey });
      assert.equal(answer.status, 200, answer.text);
      for (let i = 0; i < 50 && !gone.seen.ended; i++) await new Promise((r) => setTimeout(r, 100));
      assert.equal(gone.seen.ended, true, 'the revoked key’s stream was ended by the server');
      const { txid } = await mintTokens(apiContextOf(parts), parts.keys.mint, {
        to: party('revoked stream').address,
        amount: 7n,
      });
      for (let i = 0; i < 50 && !live.seen.text.includes(txid); i++)
        await new Promise((r) => setTimeout(r, 100));
      assert.ok(live.seen.text.includes(txid), 'a live key’s stream carries the new record');
      assert.equal(live.seen.ended, false);
      assert.ok(!gone.seen.text.includes(txid));
    } finally {
      await gone.stop();
      await live.stop();
    }
  });
});
