// The sandbox's shared public token ignores Idempotency-Key: every wallet holds the token, so
// one holder's key must not answer or refuse another holder's request. Over real HTTP.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiContextOf } from '../../src/compose.js';
import { REFERENCE_CLIENT_TOKENS } from '../../src/http/well-known-tokens.js';
import { createApiKey } from '../../src/store/access/api-keys-store.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import { transferOf, utxosOf } from '../e2e/e2e-http.js';
import { eventually, startTestService, type TestService } from '../e2e/support.js';
import { party } from '../support/token-world.js';

describe('Idempotency-Key under the shared public token', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService(['--no-rate-limit-enabled']);
  });
  after(async () => t?.stop());

  it("one holder's Idempotency-Key does not refuse another holder's transfer", async () => {
    const { parts } = t.service;
    const reader = (await createApiKey(parts.db, parts.masterKey, { name: 'r', scopes: ['read'] })).key;
    const alice = party('shared idem alice');
    const bob = party('shared idem bob');
    const carol = party('shared idem carol');
    await mintTokens(apiContextOf(parts), parts.keys.mint, { to: alice.address, amount: 500_000n });
    await mintTokens(apiContextOf(parts), parts.keys.mint, { to: bob.address, amount: 500_000n });
    await parts.devnet!.mine(1);
    const a = await eventually(async () => {
      const o = await utxosOf(t.url, reader, alice.address);
      return o.length ? o : undefined;
    }, 'alice');
    const b = await eventually(async () => {
      const o = await utxosOf(t.url, reader, bob.address);
      return o.length ? o : undefined;
    }, 'bob');
    const token = parts.ctx.token;
    const send = (rawtx: string) =>
      fetch(`${t.url}/v2/transfer?auth_token=${REFERENCE_CLIENT_TOKENS.sandbox}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'order-1' },
        body: JSON.stringify({ rawtx }),
      });
    const first = await send(
      transferOf(token, { from: alice, inputs: [a[0]!], to: carol, amount: 1000n, fee: 100n }),
    );
    assert.equal(first.status, 200, await first.text());
    const second = await send(
      transferOf(token, { from: bob, inputs: [b[0]!], to: carol, amount: 1000n, fee: 100n }),
    );
    const text = await second.text();
    assert.equal(
      second.status,
      200,
      `bob's own transfer, under an Idempotency-Key alice used: ${second.status} ${text}`,
    );
  });
});
