// Attack: one submit key draining the funding pool for everyone (issue 29: about 250
// self-transfers drained the 470-output pool in 5 s and every wallet got 503 FUNDING_EXHAUSTED).
// A real service (PGlite, devnet, no tracker: the pool is not refilled) whose pool counts as low
// (its low-water mark above its level): the flooding key gets 429 FUNDING_SHARE_EXCEEDED with
// Retry-After once it took its share, and another key's transfer still gets a ticket.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiContextOf } from '../../src/compose.js';
import { createApiKey } from '../../src/store/access/api-keys-store.js';
import { refillFundingPool } from '../../src/usecases/funding/pool-refill.js';
import { FLOOR } from '../../src/usecases/submit/funding-share.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import { party } from '../support/token-world.js';
import { assertProblem, http, transferOf, utxosOf } from './e2e-http.js';
import { startTestService, type TestService } from './support.js';

const FLOODER = party('funding share flooder');
const MERCHANT = party('funding share merchant');
const SINK = party('funding share sink');

describe("attack: one key draining the funding pool gets 429, not everyone's 503", () => {
  let t: TestService;
  let flooderKey: string;
  let merchantKey: string;

  before(async () => {
    t = await startTestService([
      '--roles',
      'api,devnet',
      '--funding-pool-low-water',
      '1000000',
      '--funding-pool-low-water-max',
      '1000000',
    ]);
    const { parts } = t.service;
    const ctx = apiContextOf(parts);
    await refillFundingPool(
      {
        db: parts.db,
        ledger: parts.ledger,
        fundingKey: parts.keys.funding,
        feeRate: ctx.feeRate,
        now: ctx.now,
        log: ctx.log,
      },
      100,
    );
    flooderKey = (
      await createApiKey(parts.db, parts.masterKey, { name: 'flooder', scopes: ['read', 'submit'] })
    ).key;
    merchantKey = (
      await createApiKey(parts.db, parts.masterKey, { name: 'merchant', scopes: ['read', 'submit'] })
    ).key;
    for (let i = 0; i < FLOOR + 4; i++)
      await mintTokens(ctx, parts.keys.mint, { to: FLOODER.address, amount: 10_000n + BigInt(i) });
    await mintTokens(ctx, parts.keys.mint, { to: MERCHANT.address, amount: 50_000n });
  });
  after(async () => {
    await t?.stop();
  });

  it('the flooder is refused once it took its share; the merchant is answered', async () => {
    const token = t.service.parts.ctx.token;
    const send = (key: string, from: typeof FLOODER, input: Awaited<ReturnType<typeof utxosOf>>[number]) =>
      http(t.url, 'POST', '/v2/transfer', {
        key,
        body: {
          rawtx: transferOf(token, {
            from,
            inputs: [input],
            to: SINK,
            amount: input.amount - 100n,
            fee: 100n,
          }),
        },
      });
    const statuses: number[] = [];
    let refusal: Awaited<ReturnType<typeof send>> | undefined;
    for (const input of await utxosOf(t.url, flooderKey, FLOODER.address)) {
      const answer = await send(flooderKey, FLOODER, input);
      statuses.push(answer.status);
      if (answer.status !== 200 && refusal === undefined) refusal = answer;
    }
    assert.deepEqual(statuses.slice(0, FLOOR), Array(FLOOR).fill(200), 'its floor is served');
    assert.ok(refusal !== undefined, `then refused (${statuses.join(' ')})`);
    assertProblem(refusal, 429, 'FUNDING_SHARE_EXCEEDED');
    assert.match(refusal.headers.get('retry-after') ?? '', /^\d+$/);
    const [input] = await utxosOf(t.url, merchantKey, MERCHANT.address);
    const merchant = await send(merchantKey, MERCHANT, input!);
    assert.equal(merchant.status, 200, merchant.text);
  });
});
