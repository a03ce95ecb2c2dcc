// The writer's checks of what an api process sent it (src/writer/submission-check.ts): a
// genuine cosigned submission passes, and what the writer writes is what it derived from the
// raw transaction and the index, whatever the sender claimed; each forgery is refused.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Transaction } from '@bsv/sdk';
import { lockingScriptOf, unlockingScriptOf } from '../../src/crypto/script-objects.js';
import { signDigest } from '../../src/crypto/secp256k1.js';
import { seal } from '../../src/crypto/secret-box.js';
import { sighashDigest } from '../../src/crypto/sighash.js';
import { SIGHASH_ALL_FORKID } from '../../src/crypto/signature-encoding.js';
import { txidOf } from '../../src/crypto/txid.js';
import { completeTransfer } from '../../src/domain/complete-transfer.js';
import { parseTransfer } from '../../src/domain/parse-transfer.js';
import { concatBytes, pushData, readChunks } from '../../src/domain/script-chunks.js';
import { buildTokenScript } from '../../src/domain/token-script.js';
import { isRefusal } from '../../src/domain/transfer-refusal.js';
import { validateTransfer } from '../../src/domain/validate-transfer.js';
import type { Submission } from '../../src/store/submissions/submission-writes.js';
import { checkSubmission, type IndexedOutput } from '../../src/writer/submission-check.js';
import { buildTransfer, tokenOutput } from '../support/build-transfer.js';
import { aSubmission } from '../support/submission-fixture.js';
import { party, TokenWorld } from '../support/token-world.js';

const NOW = new Date('2026-11-27T10:00:00Z');
const BOUNDS = { maxClockSkewMs: 30_000, maxFirstLookMs: 60_000 };

function genuine() {
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
  assert.ok(valid.ok);
  const funding = world.fundingOutput(10_000n);
  const done = completeTransfer(
    valid,
    funding,
    { approver: world.approver.privateKey, funding: world.funding.privateKey },
    50n,
  );
  const submission: Submission = aSubmission({
    txid: done.txid,
    submittedTxid: parsed.txid,
    rawTx: done.raw,
    inputs: inputs.map((o) => ({ txid: o.txid, vout: o.vout })),
    funding: { txid: funding.txid, vout: funding.vout },
    now: NOW,
    firstCheckAt: new Date(NOW.getTime() + 5_000),
  });
  const known = new Map<string, IndexedOutput>(world.outputs);
  return { world, submission, known, done, inputs, alice, bob };
}

function refusedWith(
  s: Submission,
  known: ReadonlyMap<string, IndexedOutput>,
  world: TokenWorld,
  reason: RegExp,
) {
  const checked = checkSubmission(s, known, world.config, NOW, BOUNDS);
  assert.equal(checked.ok, false, 'refused');
  if (!checked.ok) assert.match(checked.reason, reason);
}

/** The cosigned transaction with input `i`'s approver signature replaced by `sign`'s. */
function resigned(g: ReturnType<typeof genuine>, i: number, key: Uint8Array, hashType = SIGHASH_ALL_FORKID) {
  const tx = Transaction.fromBinary(g.done.raw);
  const input = g.inputs[i]!;
  const digest = sighashDigest(tx, i, lockingScriptOf(input.lockingScript), input.satoshis, hashType, {});
  const chunks = readChunks(tx.inputs[i]!.unlockingScript!.toUint8Array())!;
  const sig = concatBytes([signDigest(digest, key), Uint8Array.of(hashType)]);
  tx.inputs[i]!.unlockingScript = unlockingScriptOf(
    concatBytes([pushData(sig), pushData(chunks[1]!.data!), pushData(chunks[2]!.data!)]),
  );
  (tx as unknown as { invalidateSerializationCaches(): void }).invalidateSerializationCaches();
  const raw = tx.toUint8Array();
  assert.notDeepEqual(raw, g.done.raw, 'the signature was replaced');
  return { ...g.submission, rawTx: raw, txid: txidOf(raw) };
}

describe('the writer checks each submission against its cosigned transaction', () => {
  it('a genuine submission passes, and what is written is derived, not what was claimed', () => {
    const g = genuine();
    const thief = party('thief');
    const claimed: Submission = {
      ...g.submission,
      outputs: [
        {
          vout: 0,
          owner: thief.address,
          amount: 10_000n,
          op: 'transfer',
          script: new Uint8Array(),
          satoshis: 1n,
        },
      ],
      senders: [],
      receivers: [thief.address],
    };
    const checked = checkSubmission(claimed, g.known, g.world.config, NOW, BOUNDS);
    assert.ok(checked.ok, checked.ok ? '' : checked.reason);
    const s = checked.submission;
    assert.deepEqual(
      s.outputs.map((o) => [o.vout, o.owner, o.amount, o.op]),
      [
        [0, g.bob.address, 500_000n, 'transfer'],
        [1, g.world.fee.address, 100n, 'transfer'],
        [2, g.alice.address, 499_900n, 'transfer'],
      ],
    );
    assert.deepEqual(s.senders, [g.alice.address]);
    assert.deepEqual(s.receivers, [g.bob.address, g.world.fee.address, g.alice.address]);
    assert.equal(s.txid, g.done.txid);
  });

  it('refuses a raw transaction that does not parse (the made-up submission of issue 29)', () => {
    const g = genuine();
    refusedWith({ ...g.submission, rawTx: Uint8Array.of(1, 2, 3), inputs: [] }, g.known, g.world, /^rawTx/);
  });

  it("refuses a txid that is not the raw transaction's", () => {
    const g = genuine();
    refusedWith({ ...g.submission, txid: 'ee'.repeat(32) }, g.known, g.world, /^txid/);
  });

  it('refuses inputs or a funding input that are not the raw transaction’s', () => {
    const g = genuine();
    refusedWith({ ...g.submission, inputs: g.submission.inputs.slice(1) }, g.known, g.world, /^inputs/);
    refusedWith(
      { ...g.submission, funding: { txid: 'ff'.repeat(32), vout: 0 } },
      g.known,
      g.world,
      /^funding/,
    );
  });

  it('refuses a token input the index does not hold', () => {
    const g = genuine();
    const known = new Map(g.known);
    known.delete(`${g.inputs[0]!.txid}_${g.inputs[0]!.vout}`);
    refusedWith(g.submission, known, g.world, /input 0: not a token output/);
  });

  it("refuses a token input signed by another key than this service's approver", () => {
    const g = genuine();
    refusedWith(
      resigned(g, 1, party('impostor').privateKey),
      g.known,
      g.world,
      /input 1: approver signature/,
    );
  });

  it('refuses an approver signature of another type than ALL|FORKID', () => {
    const g = genuine();
    refusedWith(resigned(g, 0, g.world.approver.privateKey, 0xc1), g.known, g.world, /not ALL\|FORKID/);
  });

  it('refuses an input locked to another approver', () => {
    const g = genuine();
    const known = new Map(g.known);
    const k = `${g.inputs[0]!.txid}_${g.inputs[0]!.vout}`;
    const other = buildTokenScript({
      inscription: { op: 'transfer', id: g.world.config.tokenId, amt: 600_000n },
      ownerPkh: g.alice.pkh,
      approver: party('other approver').publicKey,
    });
    known.set(k, { ...known.get(k)!, lockingScript: other });
    refusedWith(g.submission, known, g.world, /not locked to this approver/);
  });

  it('refuses amounts that do not balance', () => {
    const g = genuine();
    const known = new Map(g.known);
    const k = `${g.inputs[1]!.txid}_${g.inputs[1]!.vout}`;
    known.set(k, { ...known.get(k)!, amount: 399_000n });
    refusedWith(g.submission, known, g.world, /^amounts/);
  });

  it('refuses a spent burn output as an input', () => {
    const g = genuine();
    const known = new Map(g.known);
    const k = `${g.inputs[0]!.txid}_${g.inputs[0]!.vout}`;
    known.set(k, { ...known.get(k)!, op: 'burn' });
    refusedWith(g.submission, known, g.world, /burned/);
  });

  it('refuses a first look a year ahead, one before now, and a clock far from the writer’s', () => {
    const g = genuine();
    const yearAhead = new Date(NOW.getTime() + 365 * 24 * 3600_000);
    refusedWith({ ...g.submission, firstCheckAt: yearAhead }, g.known, g.world, /^firstCheckAt/);
    refusedWith(
      { ...g.submission, firstCheckAt: new Date(NOW.getTime() - 1) },
      g.known,
      g.world,
      /^firstCheckAt/,
    );
    const later = new Date(NOW.getTime() + 3600_000);
    refusedWith({ ...g.submission, now: later, firstCheckAt: later }, g.known, g.world, /^now/);
  });

  it('takes the largest callback secret the route accepts (256 characters of 4 bytes, sealed)', () => {
    const g = genuine();
    const sealed = seal(new Uint8Array(32).fill(7), '\u{1F600}'.repeat(256));
    const checked = checkSubmission(
      { ...g.submission, callbackUrl: 'https://wallet.example/hook', callbackSecretEnc: sealed },
      g.known,
      g.world.config,
      NOW,
      BOUNDS,
    );
    assert.equal(checked.ok, true, checked.ok ? '' : checked.reason);
  });

  it('refuses free fields out of bounds', () => {
    const g = genuine();
    refusedWith({ ...g.submission, ticketId: 'not-a-uuid' }, g.known, g.world, /^ticketId/);
    refusedWith({ ...g.submission, submittedTxid: 'x' }, g.known, g.world, /^submittedTxid/);
    refusedWith({ ...g.submission, apiKeyId: 'k' }, g.known, g.world, /^apiKeyId/);
    refusedWith({ ...g.submission, leaseOwner: 'o'.repeat(201) }, g.known, g.world, /^leaseOwner/);
    refusedWith({ ...g.submission, callbackUrl: 'file:///etc/passwd' }, g.known, g.world, /^callbackUrl/);
    refusedWith(
      { ...g.submission, callbackSecretEnc: new Uint8Array(16) },
      g.known,
      g.world,
      /^callbackSecretEnc/,
    );
  });
});
