// Property: conservation holds exactly when inputs and outputs carry the same amount; a transfer
// that creates or destroys any amount of tokens (down to one atomic unit, up to 2^64) is refused.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DEFAULT_FEE_TIERS } from '../../src/domain/fee-tiers.js';
import { parseTransfer } from '../../src/domain/parse-transfer.js';
import { isRefusal } from '../../src/domain/transfer-refusal.js';
import { validateTransfer } from '../../src/domain/validate-transfer.js';
import { buildTransfer, tokenOutput } from '../support/build-transfer.js';
import { party, TokenWorld } from '../support/token-world.js';

const alice = party('alice');
const bob = party('bob');
const MAX = 2n ** 64n - 1n;

describe('conservation (property)', () => {
  it('accepts balanced transfers and refuses every unbalanced one', () => {
    // Operator moves pay no fee, so the fee rule does not mask the conservation rule.
    const amounts = fc.array(fc.bigInt({ min: 1n, max: MAX / 8n }), { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(
        amounts,
        fc.array(fc.bigInt({ min: 1n, max: MAX / 8n }), { minLength: 1, maxLength: 3 }),
        fc.oneof(
          fc.constant(0n),
          fc.bigInt({ min: -3n, max: 3n }),
          fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }),
        ),
        (ins, split, delta) => {
          const world = new TokenWorld({ feeTiers: DEFAULT_FEE_TIERS });
          const inputs = world.credit(world.mint, ins);
          const total = ins.reduce((a, b) => a + b, 0n);
          const target = total + delta;
          if (target < BigInt(split.length)) return; // outputs must be positive amounts
          const parts = splitInto(target, split);
          const outputs = parts.map((amt, i) =>
            tokenOutput(i % 2 === 0 ? bob : alice, amt, world.config.tokenId, world.config.approver),
          );
          const raw = buildTransfer({ inputs, outputs, signer: world.mint });
          const parsed = parseTransfer(raw, world.config);
          if (isRefusal(parsed)) {
            // An output amount beyond uint64 is not a token output at all.
            assert.ok(
              parts.some((p) => p > MAX),
              parsed.detail,
            );
            return;
          }
          const result = validateTransfer(parsed, world.outputs, world.config);
          if (delta === 0n) assert.equal(result.ok, true);
          else assert.equal(result.ok ? 'accepted' : result.code, 'TOKEN_NOT_CONSERVED');
        },
      ),
      { numRuns: 150 },
    );
  });
});

/** Splits `total` into positive parts roughly proportional to `weights` (the last takes the rest, if any). */
function splitInto(total: bigint, weights: readonly bigint[]): bigint[] {
  const sum = weights.reduce((a, b) => a + b, 0n);
  const parts = weights.slice(0, -1).map((w) => {
    const p = (total * w) / sum;
    return p > 0n ? p : 1n;
  });
  const rest = total - parts.reduce((a, b) => a + b, 0n);
  if (rest > 0n) return [...parts, rest];
  // The rounded-up parts took it all: one unit each but the first, which takes the rest (the
  // parts must sum to `total` exactly, or an unbalanced case would pass as balanced).
  const ones = weights.slice(1).map(() => 1n);
  return [total - BigInt(ones.length), ...ones];
}
