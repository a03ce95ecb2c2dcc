// Issue 12, "a cosigned transaction that the ledger then refuses": what the network's policy
// refuses is refused before cosigning, so no fully signed transaction is handed back for
// inputs that are then released as FAILED. Each case breaks one policy rule of a transfer
// that is otherwise accepted.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { STANDARD_LEDGER_POLICY } from '../../src/domain/ledger-policy.js';
import { parseTransfer } from '../../src/domain/parse-transfer.js';
import { concatBytes, OP, pushData } from '../../src/domain/script-chunks.js';
import { DEFAULT_LIMITS } from '../../src/domain/token-config.js';
import { isRefusal } from '../../src/domain/transfer-refusal.js';
import { validateTransfer } from '../../src/domain/validate-transfer.js';
import { buildTransfer, type OutputSpec, tokenOutput } from '../support/build-transfer.js';
import { party, TokenWorld } from '../support/token-world.js';

const alice = party('alice');
const bob = party('bob');

function setup(overrides = {}) {
  const world = new TokenWorld(overrides);
  const inputs = world.credit(alice, [1_000_000n]);
  const out = (owner: typeof bob, amt: bigint) =>
    tokenOutput(owner, amt, world.config.tokenId, world.config.approver);
  const good: OutputSpec[] = [out(bob, 600_000n), out(world.fee, 100n), out(alice, 399_900n)];
  return { world, inputs, good };
}

function check(world: TokenWorld, raw: Uint8Array) {
  const parsed = parseTransfer(raw, world.config);
  if (isRefusal(parsed)) return parsed;
  const valid = validateTransfer(parsed, world.outputs, world.config);
  return valid.ok ? { ok: true as const } : valid;
}

function expectRefused(result: ReturnType<typeof check>, code: string) {
  assert.equal(result.ok, false, `expected ${code}, got acceptance`);
  if (!result.ok) assert.equal(result.code, code, result.detail);
}

describe('ledger policy, checked before cosigning', () => {
  it('accepts transaction versions 1 and 2', () => {
    for (const version of [1, 2]) {
      const { world, inputs, good } = setup();
      assert.deepEqual(check(world, buildTransfer({ inputs, outputs: good, signer: alice, version })), {
        ok: true,
      });
    }
  });

  it('refuses a version the network does not relay (0, 3, 0x7fffffff)', () => {
    for (const version of [0, 3, 0x7fffffff]) {
      const { world, inputs, good } = setup();
      expectRefused(
        check(world, buildTransfer({ inputs, outputs: good, signer: alice, version })),
        'NONSTANDARD_VERSION',
      );
    }
  });

  it("refuses a transfer whose cosigned form would exceed the network's size policy", () => {
    const policyMax = STANDARD_LEDGER_POLICY.maxTxBytes;
    // An operator allowed large transfers (maxTxBytes above the network's policy).
    const { world, inputs, good } = setup({
      limits: { ...DEFAULT_LIMITS, maxTxBytes: policyMax * 2, maxDataBytes: policyMax * 2 },
    });
    const data = (n: number): OutputSpec => ({
      script: concatBytes([Uint8Array.of(OP.OP_0, OP.OP_RETURN), pushData(new Uint8Array(n))]),
      satoshis: 0n,
    });
    // Fits as submitted, not once the approver signature and the funding input are added.
    const submittedBytes = buildTransfer({ inputs, outputs: [...good, data(0)], signer: alice }).length;
    const near = policyMax - submittedBytes - 100;
    const raw = buildTransfer({ inputs, outputs: [...good, data(near)], signer: alice });
    assert.ok(raw.length <= policyMax, `${raw.length} fits as submitted`);
    expectRefused(check(world, raw), 'TX_TOO_LARGE');
    const fits = buildTransfer({ inputs, outputs: [...good, data(near - 400)], signer: alice });
    assert.deepEqual(check(world, fits), { ok: true });
  });

  it('already refuses a non-final transfer and dust outputs (the rules that cover them)', () => {
    const { world, inputs, good } = setup();
    expectRefused(
      check(world, buildTransfer({ inputs, outputs: good, signer: alice, lockTime: 1 })),
      'NON_FINAL_TX',
    );
    expectRefused(
      check(world, buildTransfer({ inputs, outputs: good, signer: alice, sequence: 0 })),
      'NON_FINAL_TX',
    );
    const dust = [...good];
    dust[0] = { ...dust[0]!, satoshis: 0n };
    expectRefused(check(world, buildTransfer({ inputs, outputs: dust, signer: alice })), 'FOREIGN_OUTPUT');
  });
});
