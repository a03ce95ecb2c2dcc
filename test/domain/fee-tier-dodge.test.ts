// Issue 12, "fee tier dodged by a recipient's input": the tier follows the tokens that change
// hands (what each owner receives beyond what it put in, fee outputs excluded), so a recipient
// adding an input of its own no longer moves millions for the lowest fee. The reference
// client's own transfers (transfer and transferMulti) pay exactly the fee they paid before.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Transaction, UnlockingScript } from '@bsv/sdk';
import Mnee from '@mnee/ts-sdk';
import { lockingScriptOf, unlockingScriptOf } from '../../src/crypto/script-objects.js';
import { signDigest } from '../../src/crypto/secp256k1.js';
import { sighashDigest } from '../../src/crypto/sighash.js';
import { SIGHASH_OWNER } from '../../src/crypto/signature-encoding.js';
import { parseTransfer } from '../../src/domain/parse-transfer.js';
import { concatBytes, fromHex, pushData } from '../../src/domain/script-chunks.js';
import { isRefusal } from '../../src/domain/transfer-refusal.js';
import { type KnownTokenOutput, validateTransfer } from '../../src/domain/validate-transfer.js';
import { buildTransfer, type OutputSpec, tokenOutput } from '../support/build-transfer.js';
import { lockingFrom, type Party, party, TokenWorld, withFetch } from '../support/token-world.js';

const alice = party('alice');
const bob = party('bob');
const carol = party('carol');
const dave = party('dave');

function check(world: TokenWorld, raw: Uint8Array) {
  const parsed = parseTransfer(raw, world.config);
  if (isRefusal(parsed)) return parsed;
  return validateTransfer(parsed, world.outputs, world.config);
}

describe('fee tier: the tokens that change hands', () => {
  it('refuses 3,999,900 units to a recipient who adds a 1-unit input of its own, at the lowest fee', () => {
    const world = new TokenWorld();
    const out = (owner: Party, amt: bigint, op: 'transfer' | 'burn' = 'transfer') =>
      tokenOutput(owner, amt, world.config.tokenId, world.config.approver, op);
    const [a] = world.credit(alice, [4_000_000n]);
    const [b] = world.credit(bob, [1n]);
    const outputs = [out(bob, 3_999_901n), out(world.fee, 100n)];
    const signed = signedByOwners(world, [a!, b!], outputs);
    const result = check(world, signed);
    assert.equal(result.ok, false, `accepted: ${JSON.stringify(result, big)}`);
    if (result.ok) return;
    assert.equal(result.code, 'FEE_TOO_LOW', result.detail);
    assert.match(result.detail, /asks 1000/);

    const paying = [out(bob, 3_999_001n), out(world.fee, 1000n)];
    const accepted = check(world, signedByOwners(world, [a!, b!], paying));
    assert.ok(accepted.ok, JSON.stringify(accepted, big));
    assert.equal(accepted.transferred, 3_999_000n);
    assert.equal(accepted.feeTier?.fee, 1000n);
  });

  it('does not make a gift to the burn address out of a dodge (the kind follows the gainers)', () => {
    const world = new TokenWorld();
    const out = (owner: Party, amt: bigint, op: 'transfer' | 'burn' = 'transfer') =>
      tokenOutput(owner, amt, world.config.tokenId, world.config.approver, op);
    const [a] = world.credit(alice, [4_000_000n]);
    const [b] = world.credit(bob, [1n]);
    const outputs = [out(bob, 4_000_000n), out(world.burn, 1n)];
    const result = check(world, signedByOwners(world, [a!, b!], outputs));
    assert.equal(result.ok, false, `accepted as ${JSON.stringify(result, big)}`);
    if (!result.ok) assert.equal(result.code, 'FEE_TOO_LOW');
  });

  it('counts each owner once, net: change back to the sender and a self-transfer move nothing', () => {
    const world = new TokenWorld();
    const out = (owner: Party, amt: bigint) =>
      tokenOutput(owner, amt, world.config.tokenId, world.config.approver);
    const inputs = world.credit(alice, [1_500_000n]);
    const self = check(
      world,
      buildTransfer({ inputs, outputs: [out(alice, 1_499_900n), out(world.fee, 100n)], signer: alice }),
    );
    assert.ok(self.ok, JSON.stringify(self, big));
    assert.equal(self.transferred, 0n);
    const toBob = check(
      world,
      buildTransfer({
        inputs,
        outputs: [out(bob, 900_000n), out(world.fee, 100n), out(alice, 599_900n)],
        signer: alice,
      }),
    );
    assert.ok(toBob.ok, JSON.stringify(toBob, big));
    assert.equal(toBob.transferred, 900_000n);
  });
});

describe('fee tier: transferMulti used for the dodge', () => {
  it('refuses a transferMulti whose change gives an input owner far more than it put in, at the fee the client computed', async () => {
    const world = new TokenWorld();
    const [a] = world.credit(alice, [3_000_000n]);
    const [c] = world.credit(carol, [1n]);
    const raw = await withFetch(world.fetch, async () => {
      const mnee = new Mnee({ environment: 'sandbox', apiKey: 'test' });
      const { rawtx } = await mnee.transferMulti(
        {
          inputs: [
            { txid: a!.txid, vout: a!.vout, wif: alice.wif },
            { txid: c!.txid, vout: c!.vout, wif: carol.wif },
          ],
          recipients: [{ address: bob.address, amount: 0.00001 }],
          changeAddress: carol.address,
        },
        { broadcast: false },
      );
      assert.ok(rawtx);
      return fromHex(rawtx);
    });
    const result = check(world, raw);
    assert.equal(result.ok, false, `accepted: ${JSON.stringify(result, big)}`);
    if (!result.ok) assert.equal(result.code, 'FEE_TOO_LOW');
  });
});

describe("fee tier: the reference client's transfers pay what they paid before", () => {
  const cases: Array<{
    name: string;
    credit: bigint[];
    to: Array<{ who: Party; amount: number }>;
    fee: bigint;
    transferred: bigint;
  }> = [
    {
      name: '0.00001 token to bob',
      credit: [100_000n],
      to: [{ who: bob, amount: 0.00001 }],
      fee: 100n,
      transferred: 1n,
    },
    {
      name: '10 tokens exactly (top of the low tier)',
      credit: [2_000_000n],
      to: [{ who: bob, amount: 10 }],
      fee: 100n,
      transferred: 1_000_000n,
    },
    {
      name: '10.00001 tokens (bottom of the high tier)',
      credit: [2_000_000n],
      to: [{ who: bob, amount: 10.00001 }],
      fee: 1000n,
      transferred: 1_000_001n,
    },
    {
      name: '40 tokens from two outputs',
      credit: [3_000_000n, 2_000_000n],
      to: [{ who: bob, amount: 40 }],
      fee: 1000n,
      transferred: 4_000_000n,
    },
    {
      name: 'to two recipients',
      credit: [3_000_000n],
      to: [
        { who: bob, amount: 5 },
        { who: carol, amount: 6 },
      ],
      fee: 1000n,
      transferred: 1_100_000n,
    },
    {
      name: 'to oneself',
      credit: [3_000_000n],
      to: [{ who: alice, amount: 20 }],
      fee: 1000n,
      transferred: 0n,
    },
  ];
  for (const c of cases) {
    it(`transfer: ${c.name}`, async () => {
      const world = new TokenWorld();
      world.credit(alice, c.credit);
      const raw = await withFetch(world.fetch, async () => {
        const mnee = new Mnee({ environment: 'sandbox', apiKey: 'test' });
        const to = c.to.map((r) => ({ address: r.who.address, amount: r.amount }));
        const { rawtx } = await mnee.transfer(to, alice.wif, { broadcast: false });
        assert.ok(rawtx);
        return fromHex(rawtx);
      });
      const valid = check(world, raw);
      assert.ok(valid.ok, JSON.stringify(valid, big));
      assert.equal(valid.kind, 'transfer');
      assert.equal(valid.feePaid, c.fee, 'the fee the client pays');
      assert.equal(valid.transferred, c.transferred);
      assert.ok(valid.feeTier !== null && valid.feeTier.fee <= valid.feePaid);
    });
  }

  const multi: Array<{
    name: string;
    inputs: Array<{ who: Party; amount: bigint }>;
    to: Array<{ who: Party; amount: number }>;
    change: Party | Array<{ who: Party; amount: number }>;
    fee: bigint;
    transferred: bigint;
  }> = [
    {
      name: 'two owners, change to a third address',
      inputs: [
        { who: alice, amount: 3_000_000n },
        { who: carol, amount: 2_000_000n },
      ],
      to: [{ who: bob, amount: 30 }],
      change: dave,
      fee: 1000n,
      transferred: 4_999_000n,
    },
    {
      name: 'two owners, change to the first',
      inputs: [
        { who: alice, amount: 3_000_000n },
        { who: carol, amount: 2_000_000n },
      ],
      to: [{ who: bob, amount: 30 }],
      change: alice,
      fee: 1000n,
      transferred: 3_000_000n,
    },
    {
      name: 'one owner, small, change back',
      inputs: [{ who: alice, amount: 900_000n }],
      to: [{ who: bob, amount: 1 }],
      change: alice,
      fee: 100n,
      transferred: 100_000n,
    },
    {
      name: 'to an input owner, change to the other',
      inputs: [
        { who: alice, amount: 600_000n },
        { who: carol, amount: 400_000n },
      ],
      to: [{ who: carol, amount: 5 }],
      change: alice,
      fee: 100n,
      transferred: 100_000n,
    },
    {
      name: 'change split over two addresses',
      inputs: [{ who: alice, amount: 2_000_000n }],
      to: [{ who: bob, amount: 3 }],
      change: [
        { who: alice, amount: 10 },
        { who: dave, amount: 6.999 },
      ],
      fee: 100n,
      transferred: 999_900n,
    },
  ];
  for (const c of multi) {
    it(`transferMulti: ${c.name}`, async () => {
      const world = new TokenWorld();
      const held = c.inputs.map((i) => ({ who: i.who, out: world.credit(i.who, [i.amount])[0]! }));
      const raw = await withFetch(world.fetch, async () => {
        const mnee = new Mnee({ environment: 'sandbox', apiKey: 'test' });
        const { rawtx } = await mnee.transferMulti(
          {
            inputs: held.map((h) => ({ txid: h.out.txid, vout: h.out.vout, wif: h.who.wif })),
            recipients: c.to.map((r) => ({ address: r.who.address, amount: r.amount })),
            changeAddress: Array.isArray(c.change)
              ? c.change.map((r) => ({ address: r.who.address, amount: r.amount }))
              : c.change.address,
          },
          { broadcast: false },
        );
        assert.ok(rawtx);
        return fromHex(rawtx);
      });
      const valid = check(world, raw);
      assert.ok(valid.ok, JSON.stringify(valid, big));
      assert.equal(valid.feePaid, c.fee, 'the fee the client pays');
      assert.equal(valid.transferred, c.transferred);
    });
  }
});

/** Each input signed by its own owner (alice, bob, ...), as two wallets would. */
function signedByOwners(
  world: TokenWorld,
  inputs: readonly KnownTokenOutput[],
  outputs: readonly OutputSpec[],
) {
  const owners = [alice, bob, carol, dave, world.mint];
  const tx = new Transaction(1, [], [], 0);
  for (const input of inputs) {
    tx.addInput({
      sourceTXID: input.txid,
      sourceOutputIndex: input.vout,
      unlockingScript: new UnlockingScript(),
      sequence: 0xffffffff,
    });
  }
  for (const output of outputs) {
    tx.addOutput({ satoshis: Number(output.satoshis), lockingScript: lockingFrom(output.script) });
  }
  const unlocks = inputs.map((input, i) => {
    const signer = owners.find((p) => p.address === input.owner)!;
    const digest = sighashDigest(tx, i, lockingScriptOf(input.lockingScript), input.satoshis, SIGHASH_OWNER);
    return concatBytes([
      pushData(concatBytes([signDigest(digest, signer.privateKey), Uint8Array.of(SIGHASH_OWNER)])),
      pushData(signer.publicKey),
    ]);
  });
  for (const [i, script] of unlocks.entries()) tx.inputs[i]!.unlockingScript = unlockingScriptOf(script);
  return tx.toUint8Array();
}

function big(_k: string, v: unknown): unknown {
  return typeof v === 'bigint' ? `${v}n` : v;
}
