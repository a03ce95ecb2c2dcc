// Completing a transfer verifies every input of the result, but not an owner signature a second
// time over the digest validation already verified it against; the signatures completion makes,
// and an owner signature whose digest changed, are verified afresh.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Transaction } from '@bsv/sdk';
import { CompletionError, completeTransfer } from '../../src/domain/complete-transfer.js';
import { parseTransfer } from '../../src/domain/parse-transfer.js';
import { isRefusal } from '../../src/domain/transfer-refusal.js';
import { type ValidTransfer, validateTransfer } from '../../src/domain/validate-transfer.js';
import { verifySpend } from '../../src/domain/verify-spend.js';
import { buildTransfer, tokenOutput } from '../support/build-transfer.js';
import { lockingFrom, party, TokenWorld } from '../support/token-world.js';

const RATE = 50n;

function validTwoInputTransfer() {
  const world = new TokenWorld();
  const alice = party('alice');
  const bob = party('bob');
  const inputs = world.credit(alice, [600_000n, 400_000n]);
  const out = (o: typeof bob, amt: bigint) =>
    tokenOutput(o, amt, world.config.tokenId, world.config.approver);
  const raw = buildTransfer({
    inputs,
    outputs: [out(bob, 500_000n), out(world.fee, 100n), out(alice, 499_900n)],
    signer: alice,
  });
  const parsed = parseTransfer(raw, world.config);
  assert.ok(!isRefusal(parsed));
  const valid = validateTransfer(parsed, world.outputs, world.config);
  assert.ok(valid.ok, valid.ok ? '' : valid.detail);
  return { world, valid, keys: { approver: world.approver.privateKey, funding: world.funding.privateKey } };
}

describe('owner signatures are verified once', () => {
  it('completes from the verifications validation recorded, one per owner input, and the result verifies', () => {
    const { world, valid, keys } = validTwoInputTransfer();
    assert.equal(valid.verifiedSignatures.reused, 0);
    const funding = world.fundingOutput(10_000n);
    const done = completeTransfer(valid, funding, keys, RATE);
    assert.equal(valid.verifiedSignatures.reused, 2);
    // Checked again here without any record: every signature of the result verifies.
    for (const [i, source] of [...valid.inputs, funding].entries()) {
      const check = verifySpend(done.tx, i, {
        lockingScript: lockingFrom(source.lockingScript),
        satoshis: source.satoshis,
      });
      assert.deepEqual(check, { ok: true }, `input ${i}`);
    }
  });

  it('verifies the signatures it makes afresh: a cosign by the wrong key is caught', () => {
    const { world, valid, keys } = validTwoInputTransfer();
    assert.throws(
      () =>
        completeTransfer(
          valid,
          world.fundingOutput(10_000n),
          { ...keys, approver: party('impostor').privateKey },
          RATE,
        ),
      (err: unknown) => err instanceof CompletionError && /approver signature/.test(err.message),
    );
  });

  it('verifies an owner signature afresh when its digest is not the one validation verified', () => {
    const { world, valid, keys } = validTwoInputTransfer();
    // As if something between validation and completion changed the transaction's lock time: the
    // owner signatures commit to it, so they no longer verify, and no record may say they do.
    const raw = Uint8Array.from(valid.parsed.raw);
    raw[raw.length - 4] = 1;
    const changed: ValidTransfer = {
      ...valid,
      parsed: { ...valid.parsed, raw, tx: Transaction.fromBinary(raw) },
    };
    assert.throws(
      () => completeTransfer(changed, world.fundingOutput(10_000n), keys, RATE),
      (err: unknown) => err instanceof CompletionError && /owner signature/.test(err.message),
    );
    assert.equal(valid.verifiedSignatures.reused, 0);
  });
});
