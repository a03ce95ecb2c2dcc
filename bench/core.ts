// bench:core — validates and completes client-style transfers (2 inputs, 3 token outputs) and,
// in the same run, times raw libsecp256k1 sign and verify. Prints transfers per second per core
// and that figure as a fraction of the crypto-only ceiling: the signature operations one transfer
// needed when the target was set (2 owner verifies at validation; 3 signs: 2 cosigns + funding; 5
// verifies of the result) at libsecp256k1's measured speed. The service now runs 5 verifies, not
// 7 (an owner signature is verified once); the unit stays, so ratios compare over time.
import { performance } from 'node:perf_hooks';
import { completeTransfer } from '../src/domain/complete-transfer.js';
import { requiredFunding } from '../src/domain/network-fee.js';
import { parseTransfer } from '../src/domain/parse-transfer.js';
import { isRefusal } from '../src/domain/transfer-refusal.js';
import { validateTransfer } from '../src/domain/validate-transfer.js';
import { buildTransfer, tokenOutput } from '../test/support/build-transfer.js';
import { party, TokenWorld } from '../test/support/token-world.js';
import {
  ceilingOf,
  measureCryptoSpeed,
  SIGNS_PER_TRANSFER,
  VERIFIES_PER_TRANSFER,
} from './crypto-ceiling.js';
import { medianBy } from './median.js';

const N = Number(process.env.BENCH_TRANSFERS ?? 1000);
const OPS = Number(process.env.BENCH_CRYPTO_OPS ?? 2000);
const RATE = 50n;

function prepare() {
  const world = new TokenWorld();
  const alice = party('alice');
  const bob = party('bob');
  const raws: Uint8Array[] = [];
  for (let i = 0; i < N; i++) {
    const inputs = world.credit(alice, [600_000n + BigInt(i), 400_000n]);
    const out = (o: typeof bob, amt: bigint) =>
      tokenOutput(o, amt, world.config.tokenId, world.config.approver);
    raws.push(
      buildTransfer({
        inputs,
        outputs: [out(bob, 500_000n), out(world.fee, 100n), out(alice, 499_900n + BigInt(i))],
        signer: alice,
      }),
    );
  }
  return { world, raws };
}

function runTransfers(world: TokenWorld, raws: readonly Uint8Array[]): number {
  const keys = { approver: world.approver.privateKey, funding: world.funding.privateKey };
  const funding = world.fundingOutput(10_000n);
  const t = performance.now();
  for (const raw of raws) {
    const parsed = parseTransfer(raw, world.config);
    if (isRefusal(parsed)) throw new Error(parsed.detail);
    const valid = validateTransfer(parsed, world.outputs, world.config);
    if (!valid.ok) throw new Error(valid.detail);
    if (requiredFunding(parsed, 2n, RATE) > funding.satoshis) throw new Error('funding too small');
    completeTransfer(valid, funding, keys, RATE);
  }
  return raws.length / ((performance.now() - t) / 1000);
}

const ROUNDS = 5;
const { world, raws } = prepare();
runTransfers(world, raws.slice(0, 20)); // warm-up
// Rounds interleave the baseline and the measured work, so load on the shared machine hits both;
// the figure is the median round.
const rounds: { sign: number; verify: number; perSecond: number; ratio: number }[] = [];
const per = Math.floor(raws.length / ROUNDS);
for (let r = 0; r < ROUNDS; r++) {
  const before = measureCryptoSpeed(OPS);
  const perSecond = runTransfers(world, raws.slice(r * per, (r + 1) * per));
  const after = measureCryptoSpeed(OPS);
  const sign = (before.sign + after.sign) / 2;
  const verify = (before.verify + after.verify) / 2;
  const ceiling = ceilingOf({ sign, verify });
  rounds.push({ sign, verify, perSecond, ratio: perSecond / ceiling });
}
const median = medianBy(rounds, (r) => r.ratio);
const ceiling = ceilingOf(median);

console.log(`rounds (ratio): ${rounds.map((r) => r.ratio.toFixed(2)).join(' ')}`);
console.log(
  `libsecp256k1 baseline: ${Math.round(1 / median.sign)} sign/s, ${Math.round(1 / median.verify)} verify/s (one core)`,
);
console.log(
  `crypto-only ceiling: ${ceiling.toFixed(0)} transfers/s (${SIGNS_PER_TRANSFER} signs + ${VERIFIES_PER_TRANSFER} verifies each)`,
);
console.log(
  `validate + complete: ${median.perSecond.toFixed(0)} transfers/s per core (2 inputs, 3 token outputs; median of ${ROUNDS} rounds)`,
);
console.log(`ratio to ceiling: ${median.ratio.toFixed(2)} (target >= 0.5)`);
