// A faucet grant is given back when its mint is refused (nothing was sent), and stays counted
// when the mint failed in a way that may have sent the tokens (here: the process failing after
// the mint's ticket committed), so that the per-address bound is never passed. In process, on
// PGlite and on PostgreSQL.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { apiContextOf } from '../../src/compose.js';
import type { ApiContext } from '../../src/usecases/context.js';
import { faucetTokens } from '../../src/usecases/supply/faucet-tokens.js';
import { describeServiceOnEachDb } from '../support/service-on-each-db.js';
import { party } from '../support/token-world.js';

const bounds = { perAddress: 1, perClient: 100, windowMs: 86_400_000 };

describeServiceOnEachDb('faucet grants', ['--tracker-poll-ms', '60000'], (suite) => {
  let ctx: ApiContext;
  let mintKey: Uint8Array;

  before(() => {
    ctx = apiContextOf(suite.t.service.parts);
    mintKey = suite.t.service.parts.keys.mint;
  });

  it('a refused mint gives the grant back; one failed after its commit keeps it', async () => {
    const treasury = suite.t.service.parts.token.supply;
    const refused = party('faucet refused').address;
    // More than the treasury holds: refused before anything is built.
    await assert.rejects(
      faucetTokens(ctx, mintKey, { to: refused, client: 'c1', amount: BigInt(treasury) + 1n }, bounds),
      { code: 'INVALID_AMOUNT' },
    );
    const again = await faucetTokens(ctx, mintKey, { to: refused, client: 'c1', amount: 5n }, bounds);
    assert.equal(again.kind, 'sent', 'the refused grant was given back');

    const lost = party('faucet lost').address;
    const failing = {
      ...ctx,
      broadcasts: {
        ...ctx.broadcasts,
        enqueue: () => {
          throw new Error('connection lost');
        },
      },
    };
    await assert.rejects(
      faucetTokens(failing, mintKey, { to: lost, client: 'c2', amount: 5n }, bounds),
      /connection lost/,
    );
    const after = await faucetTokens(ctx, mintKey, { to: lost, client: 'c2', amount: 5n }, bounds);
    assert.equal(after.kind, 'over', 'the grant whose tokens may have been sent stays counted');
  });
});
