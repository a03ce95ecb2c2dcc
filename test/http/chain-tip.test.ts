// The chain tip of `status` and the console's Chain panel: asked of the ledger; when the ledger
// cannot tell, the answer says so (tip null, tipProblem why) instead of a made-up height.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { askTip } from '../../src/http/routes/chain-tip.js';
import { LedgerUnavailableError } from '../../src/ledger/port.js';

describe('askTip', () => {
  it("answers the ledger's tip", async () => {
    const tip = { height: 812_345, hash: 'ab'.repeat(32), time: 1_800_000_000 };
    assert.deepEqual(await askTip({ tip: async () => tip }), { tip });
  });

  it('a ledger that cannot tell: tip null and why, not height 0', async () => {
    const problem =
      'the chain tip: GET http://arc/api/v1/chain/tip/longest answered 404; set blockHeadersUrl';
    const asked = await askTip({
      tip: async () => {
        throw new LedgerUnavailableError(problem);
      },
    });
    assert.deepEqual(asked, { tip: null, tipProblem: problem });
  });

  it('any other failure is not hidden', async () => {
    await assert.rejects(
      askTip({
        tip: async () => {
          throw new TypeError('a bug');
        },
      }),
      TypeError,
    );
  });
});
