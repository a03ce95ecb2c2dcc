// Transfers built and signed by the reference client are accepted, completed and verified;
// the fast verification path agrees with @bsv/sdk's interpreter on every input.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Mnee from '@mnee/ts-sdk';
import { completeTransfer } from '../../src/domain/complete-transfer.js';
import { requiredFunding } from '../../src/domain/network-fee.js';
import { parseTransfer } from '../../src/domain/parse-transfer.js';
import { fromHex } from '../../src/domain/script-chunks.js';
import { isRefusal } from '../../src/domain/transfer-refusal.js';
import { validateTransfer } from '../../src/domain/validate-transfer.js';
import { verifySpend } from '../../src/domain/verify-spend.js';
import { interpreterAccepts } from '../support/interpreter.js';
import { lockingFrom, party, TokenWorld, withFetch } from '../support/token-world.js';

const FEE_RATE = 50n;

async function clientTransfer(world: TokenWorld, wif: string, to: { address: string; amount: number }[]) {
  return withFetch(world.fetch, async () => {
    const mnee = new Mnee({ environment: 'sandbox', apiKey: 'test' });
    const { rawtx } = await mnee.transfer(to, wif, { broadcast: false });
    assert.ok(rawtx, 'client returned a raw transaction');
    return fromHex(rawtx);
  });
}

describe('reference client transfers', () => {
  it('accepts, completes and verifies a two-input transfer with fee and change', async () => {
    const world = new TokenWorld();
    const alice = party('alice');
    const bob = party('bob');
    world.credit(alice, [3_000_000n, 2_000_000n]);
    const raw = await clientTransfer(world, alice.wif, [{ address: bob.address, amount: 40 }]);

    const parsed = parseTransfer(raw, world.config);
    assert.ok(!isRefusal(parsed), show(parsed));
    const valid = validateTransfer(parsed, world.outputs, world.config);
    assert.ok(valid.ok, show(valid));
    assert.equal(valid.kind, 'transfer');
    assert.equal(valid.transferred, 4_000_000n);
    assert.equal(valid.feePaid, 1000n);
    assert.equal(valid.inputs.length, 2);

    const needed = requiredFunding(parsed, 2n, FEE_RATE);
    const funding = world.fundingOutput(needed);
    const done = completeTransfer(
      valid,
      funding,
      { approver: world.approver.privateKey, funding: world.funding.privateKey },
      FEE_RATE,
    );
    assert.equal(done.tx.inputs.length, 3);
    assert.equal(done.tx.outputs.length, parsed.tx.outputs.length);

    const sources = [...valid.inputs, funding];
    for (const [i, source] of sources.entries()) {
      const fast = verifySpend(done.tx, i, {
        lockingScript: lockingFrom(source.lockingScript),
        satoshis: source.satoshis,
      });
      assert.deepEqual(fast, { ok: true }, `fast path, input ${i}`);
      assert.equal(
        interpreterAccepts(done.tx, i, lockingFrom(source.lockingScript), source.satoshis),
        true,
        `interpreter, input ${i}`,
      );
    }
  });

  it('accepts a transfer that spends one output exactly (no change)', async () => {
    const world = new TokenWorld();
    const alice = party('alice');
    world.credit(alice, [100_100n]);
    const raw = await clientTransfer(world, alice.wif, [{ address: party('carol').address, amount: 1 }]);
    const parsed = parseTransfer(raw, world.config);
    assert.ok(!isRefusal(parsed));
    assert.equal(parsed.tokenOutputs.length, 2, 'recipient and fee, no change');
    const valid = validateTransfer(parsed, world.outputs, world.config);
    assert.ok(valid.ok, show(valid));
  });

  it('accepts a transferMulti spending outputs of two owners, with change to a third address', async () => {
    const world = new TokenWorld();
    const alice = party('alice');
    const carol = party('carol');
    const [a] = world.credit(alice, [3_000_000n]);
    const [c] = world.credit(carol, [2_000_000n]);
    const raw = await withFetch(world.fetch, async () => {
      const mnee = new Mnee({ environment: 'sandbox', apiKey: 'test' });
      const { rawtx } = await mnee.transferMulti(
        {
          inputs: [
            { txid: a!.txid, vout: a!.vout, wif: alice.wif },
            { txid: c!.txid, vout: c!.vout, wif: carol.wif },
          ],
          recipients: [{ address: party('bob').address, amount: 30 }],
          changeAddress: party('dave').address,
        },
        { broadcast: false },
      );
      assert.ok(rawtx);
      return fromHex(rawtx);
    });
    const parsed = parseTransfer(raw, world.config);
    assert.ok(!isRefusal(parsed), show(parsed));
    const valid = validateTransfer(parsed, world.outputs, world.config);
    assert.ok(valid.ok, show(valid));
    assert.equal(valid.inputs.length, 2);
    const keys = { approver: world.approver.privateKey, funding: world.funding.privateKey };
    const done = completeTransfer(
      valid,
      world.fundingOutput(requiredFunding(parsed, 2n, FEE_RATE)),
      keys,
      FEE_RATE,
    );
    assert.equal(done.tx.inputs.length, 3);
  });

  it('refuses to complete with a funding output that does not cover the network fee', async () => {
    const world = new TokenWorld();
    const alice = party('alice');
    world.credit(alice, [5_000_000n]);
    const raw = await clientTransfer(world, alice.wif, [{ address: party('dave').address, amount: 2 }]);
    const parsed = parseTransfer(raw, world.config);
    assert.ok(!isRefusal(parsed));
    const valid = validateTransfer(parsed, world.outputs, world.config);
    assert.ok(valid.ok);
    const keys = { approver: world.approver.privateKey, funding: world.funding.privateKey };
    assert.throws(() => completeTransfer(valid, world.fundingOutput(2n), keys, 1000n), /funding pays/);
  });
});

function show(value: unknown): string {
  return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v)).slice(0, 400);
}
