// A completed transfer verifies; flipping any single byte of it makes verification fail,
// on the fast path and in @bsv/sdk's interpreter alike (the two paths agree on every case).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Transaction } from '@bsv/sdk';
import { completeTransfer } from '../../src/domain/complete-transfer.js';
import { requiredFunding } from '../../src/domain/network-fee.js';
import { parseTransfer } from '../../src/domain/parse-transfer.js';
import { isRefusal } from '../../src/domain/transfer-refusal.js';
import { validateTransfer } from '../../src/domain/validate-transfer.js';
import { verifySpend } from '../../src/domain/verify-spend.js';
import { buildTransfer, tokenOutput } from '../support/build-transfer.js';
import { interpreterAccepts } from '../support/interpreter.js';
import { lockingFrom, party, TokenWorld } from '../support/token-world.js';

const RATE = 50n;

function completed() {
  const world = new TokenWorld();
  const alice = party('alice');
  const inputs = world.credit(alice, [700_000n, 300_000n]);
  const out = (o: Parameters<typeof tokenOutput>[0], amt: bigint) =>
    tokenOutput(o, amt, world.config.tokenId, world.config.approver);
  const raw = buildTransfer({
    inputs,
    outputs: [out(party('bob'), 400_000n), out(world.fee, 100n), out(alice, 599_900n)],
    signer: alice,
  });
  const parsed = parseTransfer(raw, world.config);
  assert.ok(!isRefusal(parsed));
  const valid = validateTransfer(parsed, world.outputs, world.config);
  assert.ok(valid.ok);
  const funding = world.fundingOutput(requiredFunding(parsed, 2n, RATE));
  const keys = { approver: world.approver.privateKey, funding: world.funding.privateKey };
  const done = completeTransfer(valid, funding, keys, RATE);
  const sources = new Map(
    [...inputs, funding].map((o) => [
      `${o.txid}_${o.vout}`,
      { script: o.lockingScript, satoshis: o.satoshis },
    ]),
  );
  return { raw: done.raw, sources };
}

type Sources = ReturnType<typeof completed>['sources'];

/** Verifies every input of `raw` with both paths; returns [fast, interpreter] verdicts. */
function verdicts(raw: Uint8Array, sources: Sources, withInterpreter = true): [boolean, boolean] {
  let tx: Transaction;
  try {
    tx = Transaction.fromBinary(raw);
  } catch {
    return [false, false];
  }
  let fast = true;
  let interp = true;
  for (const [i, input] of tx.inputs.entries()) {
    const source = sources.get(`${input.sourceTXID}_${input.sourceOutputIndex}`);
    if (source === undefined) return [false, false];
    const locking = lockingFrom(source.script);
    fast &&= verifySpend(tx, i, { lockingScript: locking, satoshis: source.satoshis }).ok;
    if (withInterpreter) interp &&= interpreterAccepts(tx, i, locking, source.satoshis);
  }
  return [fast, interp];
}

describe('tampering', () => {
  const { raw, sources } = completed();

  it('the untouched completed transfer verifies on both paths', () => {
    assert.deepEqual(verdicts(raw, sources), [true, true]);
  });

  it('every single flipped byte fails verification on the fast path', () => {
    const survivors: number[] = [];
    for (let at = 0; at < raw.length; at++) {
      const copy = Uint8Array.from(raw);
      copy[at]! ^= 0x01;
      if (verdicts(copy, sources, false)[0]) survivors.push(at);
    }
    assert.deepEqual(survivors, [], `bytes whose change still verifies: ${survivors.join(', ')}`);
  });

  it('the fast path and the interpreter agree on a sample of tampered transactions', () => {
    // The interpreter is slow (pure-JS ECDSA): a spread of byte positions, with two kinds of change.
    for (let at = 0; at < raw.length; at += 13) {
      for (const mask of [0x01, 0x80]) {
        const copy = Uint8Array.from(raw);
        copy[at]! ^= mask;
        const [fast, interp] = verdicts(copy, sources);
        assert.equal(fast, interp, `byte ${at} ^ ${mask}: fast ${fast}, interpreter ${interp}`);
      }
    }
  });
});
