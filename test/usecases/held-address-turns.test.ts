// Transfers out of a held address (mints, burns, faucet grants) pick its oldest outputs. Several
// at once in one process take turns, so none is refused for an output another picked; one whose
// output another process's transfer took between its pick and its commit is built again (it was
// kept nowhere and reached no ticket). In process, on PGlite and on PostgreSQL.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { apiContextOf } from '../../src/compose.js';
import type { ApiContext } from '../../src/usecases/context.js';
import { submitTransfer } from '../../src/usecases/submit/submit-transfer.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import type { PreparedTransaction } from '../../src/usecases/supply/send-from-held-address.js';
import { interruptedDb } from '../support/interrupted-db.js';
import { describeServiceOnEachDb } from '../support/service-on-each-db.js';
import { party } from '../support/token-world.js';

/** Ends a mint once its transaction is built: nothing submitted. */
class Captured extends Error {}

describeServiceOnEachDb('transfers out of a held address', ['--tracker-poll-ms', '60000'], (suite) => {
  let ctx: ApiContext;
  let mintKey: Uint8Array;

  before(() => {
    ctx = apiContextOf(suite.t.service.parts);
    mintKey = suite.t.service.parts.keys.mint;
  });

  it('several mints at once all commit, each on outputs of its own', async () => {
    const minted = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        mintTokens(ctx, mintKey, { to: party(`held turns ${i}`).address, amount: BigInt(100 + i) }),
      ),
    );
    assert.equal(new Set(minted.map((m) => m.txid)).size, 6);
  });

  it("a mint whose picked output another process's transfer took meanwhile is built again", async () => {
    // The other process's transfer: built out of the same oldest outputs, not yet submitted.
    let other: Uint8Array | null = null;
    const capture: PreparedTransaction = {
      earlier: async () => null,
      keep: async (raw) => {
        other = raw;
        throw new Captured();
      },
    };
    await assert.rejects(
      mintTokens(ctx, mintKey, { to: party('held other').address, amount: 5n }, capture),
      Captured,
    );
    // It commits right after the mint under test picked its outputs.
    let took = false;
    const racing = {
      ...ctx,
      db: interruptedDb(
        ctx.db,
        /FROM token_outputs o\s+WHERE o\.owner = a\.owner/,
        async () => {
          await submitTransfer(ctx, {
            raw: other!,
            callbackUrl: null,
            callbackSecretEnc: null,
            apiKeyId: null,
          });
          took = true;
        },
        false,
      ),
    };
    const minted = await mintTokens(racing, mintKey, { to: party('held raced').address, amount: 7n });
    assert.equal(took, true, 'the other transfer committed between the pick and the commit');
    const [row] = await ctx.db.query<{ owner: string; amount: string }>(
      'SELECT owner, amount::text AS amount FROM token_outputs WHERE txid = $1 AND vout = 0',
      [minted.txid],
    );
    assert.deepEqual(row, { owner: party('held raced').address, amount: '7' });
  });
});
