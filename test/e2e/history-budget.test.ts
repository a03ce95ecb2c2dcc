// Attack: an anonymous POST /v2/history whose items each name another fromScore (one group
// each, up to maxAddresses of them), so that each group reads up to the anonymous cap. The
// groups of one anonymous request now share one budget of anonymousMaxRecords records (at least
// one per address once it is spent); a keyed caller still gets every group whole.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiContextOf } from '../../src/compose.js';
import { createApiKey } from '../../src/store/access/api-keys-store.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import { party } from '../support/token-world.js';
import { http } from './e2e-http.js';
import { startTestService, type TestService } from './support.js';

const ALICE = party('history budget alice');
const CAP = 5;
const MINTS = 8;
const ITEMS = 12;

describe('anonymous POST /v2/history shares one budget across its groups', () => {
  let t: TestService;
  let key: string;

  before(async () => {
    t = await startTestService(['--anonymous-max-records', String(CAP)]);
    const { parts } = t.service;
    for (let i = 0; i < MINTS; i++)
      await mintTokens(apiContextOf(parts), parts.keys.mint, {
        to: ALICE.address,
        amount: 1_000n + BigInt(i),
      });
    key = (await createApiKey(parts.db, parts.masterKey, { name: 'reader', scopes: ['read'] })).key;
  });
  after(async () => {
    await t?.stop();
  });

  it('reads at most the cap (and one per address per group after it) anonymously, everything with a key', async () => {
    const items = Array.from({ length: ITEMS }, (_, i) => ({ address: ALICE.address, fromScore: i }));
    const entries = (answer: { json: unknown }) =>
      (answer.json as { history: unknown[] }[]).reduce((sum, h) => sum + h.history.length, 0);
    const anonymous = await http(t.url, 'POST', '/v2/history', { body: items });
    assert.equal(anonymous.status, 200, anonymous.text);
    const got = entries(anonymous);
    assert.ok(got > 0 && got <= CAP + ITEMS - 1, `${got} entries for an anonymous caller`);
    const keyed = await http(t.url, 'POST', '/v2/history', { key, body: items });
    assert.equal(keyed.status, 200, keyed.text);
    assert.ok(entries(keyed) > CAP + ITEMS - 1, `a keyed caller is not bound (${entries(keyed)} entries)`);
  });
});
