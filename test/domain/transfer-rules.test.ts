// For every rule of token-rules.md, a transfer that breaks exactly that rule is refused
// with its own code; the same transfer with the rule kept is accepted (so each case can fail).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Transaction } from '@bsv/sdk';
import { SIGHASH_ALL_FORKID } from '../../src/crypto/signature-encoding.js';
import type { FeeTier } from '../../src/domain/fee-tiers.js';
import { parseTransfer } from '../../src/domain/parse-transfer.js';
import { concatBytes, OP, pushData } from '../../src/domain/script-chunks.js';
import { DEFAULT_LIMITS } from '../../src/domain/token-config.js';
import { buildInscribedCosignScript, buildP2pkhScript } from '../../src/domain/token-script.js';
import { isRefusal } from '../../src/domain/transfer-refusal.js';
import { type KnownTokenOutput, validateTransfer } from '../../src/domain/validate-transfer.js';
import { buildTransfer, type OutputSpec, tokenOutput } from '../support/build-transfer.js';
import { party, TokenWorld } from '../support/token-world.js';

const alice = party('alice');
const bob = party('bob');

function check(
  world: TokenWorld,
  raw: Uint8Array,
  known: ReadonlyMap<string, KnownTokenOutput> = world.outputs,
) {
  const parsed = parseTransfer(raw, world.config);
  if (isRefusal(parsed)) return parsed;
  const valid = validateTransfer(parsed, known, world.config);
  return valid.ok ? { ok: true as const, kind: valid.kind } : valid;
}

/** A world where alice holds 1,000,000 + 500,000 and a standard transfer of 600,000 to bob. */
function setup(worldOverrides = {}) {
  const world = new TokenWorld(worldOverrides);
  const inputs = world.credit(alice, [1_000_000n, 500_000n]);
  const out = (owner: Parameters<typeof tokenOutput>[0], amt: bigint, op: 'transfer' | 'burn' = 'transfer') =>
    tokenOutput(owner, amt, world.config.tokenId, world.config.approver, op);
  const good: OutputSpec[] = [out(bob, 600_000n), out(world.fee, 100n), out(alice, 899_900n)];
  return { world, inputs, out, good };
}

function expectRefused(result: ReturnType<typeof check>, code: string, detail?: RegExp) {
  assert.equal(result.ok, false, `expected ${code}, got acceptance`);
  if (result.ok) return;
  assert.equal(result.code, code, result.detail);
  if (detail) assert.match(result.detail, detail);
}

describe('transfer rules', () => {
  it('accepts the well-formed transfer every case below breaks', () => {
    const { world, inputs, good } = setup();
    assert.deepEqual(check(world, buildTransfer({ inputs, outputs: good, signer: alice })), {
      ok: true,
      kind: 'transfer',
    });
  });

  describe('rule 1: parses, final, within limits', () => {
    it('refuses bytes that are not a transaction', () => {
      const { world } = setup();
      expectRefused(check(world, Uint8Array.of(1, 2, 3)), 'INVALID_TX');
    });
    it('refuses trailing bytes', () => {
      const { world, inputs, good } = setup();
      const raw = buildTransfer({ inputs, outputs: good, signer: alice });
      expectRefused(check(world, concatBytes([raw, Uint8Array.of(0)])), 'INVALID_TX', /trailing/);
    });
    it('refuses a non-zero nLockTime', () => {
      const { world, inputs, good } = setup();
      expectRefused(
        check(world, buildTransfer({ inputs, outputs: good, signer: alice, lockTime: 1 })),
        'NON_FINAL_TX',
      );
    });
    it('refuses a non-final nSequence', () => {
      const { world, inputs, good } = setup();
      const raw = buildTransfer({ inputs, outputs: good, signer: alice, sequence: 0xfffffffe });
      expectRefused(check(world, raw), 'NON_FINAL_TX');
    });
    it('refuses more inputs, outputs or bytes than the limits', () => {
      const tight = { limits: { ...DEFAULT_LIMITS, maxInputs: 1, maxOutputs: 2, maxTxBytes: 100_000 } };
      const a = setup(tight);
      expectRefused(
        check(a.world, buildTransfer({ inputs: a.inputs, outputs: a.good, signer: alice })),
        'LIMIT_EXCEEDED',
        /inputs/,
      );
      const b = setup({ limits: { ...DEFAULT_LIMITS, maxTxBytes: 300 } });
      expectRefused(
        check(b.world, buildTransfer({ inputs: b.inputs, outputs: b.good, signer: alice })),
        'LIMIT_EXCEEDED',
        /bytes/,
      );
    });
    it('refuses one outpoint spent twice', () => {
      const { world, inputs, good } = setup();
      const twice = [inputs[0]!, inputs[0]!];
      expectRefused(
        check(world, buildTransfer({ inputs: twice, outputs: good, signer: alice })),
        'DUPLICATE_INPUT',
      );
    });
  });

  describe('rule 2: inputs are unspent, unreserved outputs of this token', () => {
    it('refuses an input whose output index no stored output can have (above 2^31 - 1), not a 500', () => {
      const { world, inputs, good } = setup();
      const far = [inputs[0]!, { ...inputs[1]!, vout: 3_061_582_847 }];
      // Refused while parsing, before the store is asked (it takes vouts up to 2^31 - 1 only).
      const parsed = parseTransfer(
        buildTransfer({ inputs: far, outputs: good, signer: alice }),
        world.config,
      );
      assert.ok(isRefusal(parsed), 'refused at parse');
      expectRefused(parsed, 'UNKNOWN_INPUT', /3061582847/);
    });
    it('refuses an input the index does not hold', () => {
      const { world, inputs, good } = setup();
      const known = new Map(world.outputs);
      known.delete(`${inputs[1]!.txid}_1`);
      expectRefused(
        check(world, buildTransfer({ inputs, outputs: good, signer: alice }), known),
        'UNKNOWN_INPUT',
      );
    });
    it('refuses a spent input with the text newer clients match', () => {
      const { world, inputs, good } = setup();
      const key = `${inputs[0]!.txid}_0`;
      const known = new Map(world.outputs).set(key, { ...inputs[0]!, state: 'spent' });
      const result = check(world, buildTransfer({ inputs, outputs: good, signer: alice }), known);
      expectRefused(result, 'INPUT_SPENT', /already spent/);
    });
    it('refuses a reserved input with the text newer clients match', () => {
      const { world, inputs, good } = setup();
      const key = `${inputs[0]!.txid}_0`;
      const known = new Map(world.outputs).set(key, { ...inputs[0]!, state: 'reserved' });
      const result = check(world, buildTransfer({ inputs, outputs: good, signer: alice }), known);
      expectRefused(
        result,
        'INPUT_LOCKED',
        new RegExp(`outpoint ${key} was locked in a previous transaction attempt`),
      );
    });
  });

  describe('rule 3: owner signatures', () => {
    it('refuses a transfer signed by someone else', () => {
      const { world, inputs, good } = setup();
      expectRefused(
        check(world, buildTransfer({ inputs, outputs: good, signer: bob })),
        'BAD_OWNER_SIGNATURE',
      );
    });
    it('refuses an unsigned transfer', () => {
      const { world, inputs, good } = setup();
      expectRefused(check(world, buildTransfer({ inputs, outputs: good })), 'BAD_OWNER_SIGNATURE');
    });
    it('refuses a signature with sighash ALL|FORKID instead of 0xc1', () => {
      const { world, inputs, good } = setup();
      const raw = buildTransfer({ inputs, outputs: good, signer: alice, sighash: SIGHASH_ALL_FORKID });
      expectRefused(check(world, raw), 'BAD_SIGHASH');
    });
    it('refuses a signature over other outputs (outputs changed after signing)', () => {
      const { world, inputs, good, out } = setup();
      const signed = buildTransfer({ inputs, outputs: good, signer: alice });
      const other = buildTransfer({ inputs, outputs: [out(bob, 600_001n), good[1]!, out(alice, 899_899n)] });
      // Same inputs, other outputs, alice's signatures from the first transaction.
      const a = Transaction.fromBinary(signed);
      const b = Transaction.fromBinary(other);
      b.inputs.forEach((input, i) => {
        input.unlockingScript = a.inputs[i]!.unlockingScript;
      });
      expectRefused(check(world, b.toUint8Array()), 'BAD_OWNER_SIGNATURE');
    });
  });

  describe('rule 4: outputs', () => {
    it('refuses a P2PKH output (the service would pay for it)', () => {
      const { world, inputs, good } = setup();
      const outputs = [...good, { script: buildP2pkhScript(bob.pkh), satoshis: 1000n }];
      expectRefused(check(world, buildTransfer({ inputs, outputs, signer: alice })), 'FOREIGN_OUTPUT');
    });
    it('refuses an output of another token', () => {
      const { world, inputs, good } = setup();
      const foreign = tokenOutput(bob, 600_000n, `${'cd'.repeat(32)}_0`, world.config.approver);
      const outputs = [foreign, good[1]!, good[2]!];
      expectRefused(check(world, buildTransfer({ inputs, outputs, signer: alice })), 'WRONG_TOKEN');
    });
    it('refuses an output locked to another approver', () => {
      const { world, inputs, good } = setup();
      const foreign = tokenOutput(bob, 600_000n, world.config.tokenId, party('mallory').publicKey);
      const outputs = [foreign, good[1]!, good[2]!];
      expectRefused(check(world, buildTransfer({ inputs, outputs, signer: alice })), 'WRONG_APPROVER');
    });
    it('refuses a non-canonical amt', () => {
      const { world, inputs, good } = setup();
      const json = `{"p":"bsv-20","op":"transfer","id":"${world.config.tokenId}","amt":"0600000"}`;
      const badScript = buildInscribedCosignScript(json, bob.pkh, world.config.approver);
      const outputs = [{ script: badScript, satoshis: 1n }, good[1]!, good[2]!];
      expectRefused(check(world, buildTransfer({ inputs, outputs, signer: alice })), 'INVALID_AMOUNT');
    });
    it('refuses a token output holding more than one satoshi', () => {
      const { world, inputs, good } = setup();
      const outputs = [{ ...good[0]!, satoshis: 2n }, good[1]!, good[2]!];
      expectRefused(check(world, buildTransfer({ inputs, outputs, signer: alice })), 'FOREIGN_OUTPUT');
    });
    it('accepts one OP_0 OP_RETURN data output, refuses a second and one over 512 bytes', () => {
      const { world, inputs, good } = setup();
      const data = (n: number) => ({
        script: concatBytes([Uint8Array.of(OP.OP_0, OP.OP_RETURN), pushData(new Uint8Array(n))]),
        satoshis: 0n,
      });
      assert.equal(
        check(world, buildTransfer({ inputs, outputs: [...good, data(512)], signer: alice })).ok,
        true,
      );
      expectRefused(
        check(world, buildTransfer({ inputs, outputs: [...good, data(10), data(10)], signer: alice })),
        'FOREIGN_OUTPUT',
      );
      expectRefused(
        check(world, buildTransfer({ inputs, outputs: [...good, data(513)], signer: alice })),
        'LIMIT_EXCEEDED',
      );
    });
  });

  describe('rule 5: conservation', () => {
    it('refuses outputs that create tokens', () => {
      const { world, inputs, good, out } = setup();
      const outputs = [good[0]!, good[1]!, out(alice, 899_901n)];
      expectRefused(check(world, buildTransfer({ inputs, outputs, signer: alice })), 'TOKEN_NOT_CONSERVED');
    });
    it('refuses outputs that destroy tokens', () => {
      const { world, inputs, good, out } = setup();
      const outputs = [good[0]!, good[1]!, out(alice, 899_899n)];
      expectRefused(check(world, buildTransfer({ inputs, outputs, signer: alice })), 'TOKEN_NOT_CONSERVED');
    });
  });

  describe('rule 6: fees', () => {
    it('refuses a fee below the tier', () => {
      const { world, inputs, out } = setup();
      const outputs = [out(bob, 600_000n), out(world.fee, 99n), out(alice, 899_901n)];
      expectRefused(check(world, buildTransfer({ inputs, outputs, signer: alice })), 'FEE_TOO_LOW');
    });
    it('asks the higher tier above 1,000,000', () => {
      const { world, inputs, out } = setup();
      const outputs = [out(bob, 1_100_000n), out(world.fee, 100n), out(alice, 399_900n)];
      expectRefused(
        check(world, buildTransfer({ inputs, outputs, signer: alice })),
        'FEE_TOO_LOW',
        /asks 1000/,
      );
    });
    it('refuses an amount no tier covers', () => {
      const tiers: FeeTier[] = [{ fee: 100n, min: 0n, max: 500_000n }];
      const { world, inputs, good } = setup({ feeTiers: tiers });
      expectRefused(check(world, buildTransfer({ inputs, outputs: good, signer: alice })), 'NO_FEE_TIER');
    });
    it('asks no fee of a transfer to the burn address or a burn', () => {
      const { world, inputs, out } = setup();
      const toBurn = [out(world.burn, 1_000_000n), out(alice, 500_000n)];
      assert.deepEqual(check(world, buildTransfer({ inputs, outputs: toBurn, signer: alice })), {
        ok: true,
        kind: 'burn',
      });
      const burnOp = [out(alice, 1_000_000n, 'burn'), out(alice, 500_000n)];
      assert.deepEqual(check(world, buildTransfer({ inputs, outputs: burnOp, signer: alice })), {
        ok: true,
        kind: 'burn',
      });
    });
    it('asks no fee of the mint address (operator moves)', () => {
      const world = new TokenWorld();
      const inputs = world.credit(world.mint, [2_000_000n]);
      const outputs = [tokenOutput(bob, 2_000_000n, world.config.tokenId, world.config.approver)];
      assert.deepEqual(check(world, buildTransfer({ inputs, outputs, signer: world.mint })), {
        ok: true,
        kind: 'operator',
      });
    });
  });
});
