// The devnet's ARC API takes POST /v1/txs as concatenated raw bytes and splits them itself. It
// split them with @bsv/sdk's parser, which trusts counts: 9 bytes announcing 16 million inputs
// (or 15 announcing four billion) made the process allocate until it died of heap exhaustion.
// Now a piece that is no whole transaction is answered as malformed (463) at once, after the
// whole transactions before it. The parser tripwire fails the test, not the runner's memory, on
// code without the guard.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ArcServer, startArcServer } from '../../src/ledger/devnet/arc-http-server.js';
import { createDevnet, type Devnet } from '../../src/ledger/devnet/devnet.js';
import { HOSTILE, parsedSafely } from '../support/parser-tripwire.js';
import { bob, genesisCoins, genesisOption, spend } from './fixtures.js';

describe('devnet ARC API: concatenated bytes announcing more inputs than they hold', () => {
  let devnet: Devnet;
  let server: ArcServer;

  before(async () => {
    devnet = await createDevnet({ genesis: genesisOption, blockIntervalMs: 0, feeRateSatPerKb: 50n });
    server = await startArcServer({ devnet });
  });
  after(async () => {
    await server.close();
    await devnet.close();
  });

  const postBytes = async (bytes: Uint8Array) => {
    const res = await parsedSafely(() =>
      fetch(`${server.url}/v1/txs`, {
        method: 'POST',
        headers: { 'content-type': 'application/octet-stream' },
        body: bytes,
      }),
    );
    assert.equal(res.status, 200);
    return (await res.json()) as Array<{ status?: number; txStatus?: string; txid?: string }>;
  };

  for (const hostile of HOSTILE) {
    it(`answers ${hostile.length} such bytes as one malformed transaction`, async () => {
      const answers = await postBytes(hostile);
      assert.deepEqual(
        answers.map((a) => a.status),
        [463],
      );
    });
  }

  it('takes the whole transactions before them, and answers the rest as malformed', async () => {
    const good = await spend([genesisCoins(devnet)[2]!], [{ to: bob, satoshis: 99_000n }]);
    const answers = await postBytes(Uint8Array.from([...good.raw, ...HOSTILE[0]]));
    assert.deepEqual(
      answers.map((a) => a.txStatus ?? a.status),
      ['SEEN_ON_NETWORK', 463],
    );
    assert.equal(answers[0]!.txid, good.txid);
  });
});
