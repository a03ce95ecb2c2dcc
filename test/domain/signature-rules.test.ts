// The encoding rules the network enforces on checksig operands, on the fast path: low S,
// strict DER, a defined sighash type with FORKID, a well-encoded public key.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Transaction } from '@bsv/sdk';
import { readChunks } from '../../src/domain/script-chunks.js';
import { checkSig } from '../../src/domain/verify-spend.js';
import { buildTransfer, tokenOutput } from '../support/build-transfer.js';
import { lockingFrom, party, TokenWorld } from '../support/token-world.js';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

function signedInput() {
  const world = new TokenWorld();
  const alice = party('alice');
  const [input] = world.credit(alice, [1000n]);
  const raw = buildTransfer({
    inputs: [input!],
    outputs: [tokenOutput(party('bob'), 1000n, world.config.tokenId, world.config.approver)],
    signer: alice,
  });
  const tx = Transaction.fromBinary(raw);
  const chunks = readChunks(tx.inputs[0]!.unlockingScript!.toUint8Array())!;
  const source = { lockingScript: lockingFrom(input!.lockingScript), satoshis: input!.satoshis };
  return { tx, sig: chunks[0]!.data!, pub: chunks[1]!.data!, source };
}

/** DER of (r, s) with a trailing sighash byte; `padR` needless zero bytes before R make it non-strict. */
function der(r: bigint, s: bigint, hashType: number, padR = 0): Uint8Array {
  const int = (n: bigint) => {
    let hex = n.toString(16);
    if (hex.length % 2) hex = `0${hex}`;
    const bytes = Buffer.from(hex, 'hex');
    return bytes[0]! & 0x80 ? Buffer.concat([Buffer.of(0), bytes]) : bytes;
  };
  const R = Buffer.concat([Buffer.alloc(padR), int(r)]);
  const S = int(s);
  const body = Buffer.concat([Buffer.of(0x02, R.length), R, Buffer.of(0x02, S.length), S]);
  return new Uint8Array(Buffer.concat([Buffer.of(0x30, body.length), body, Buffer.of(hashType)]));
}

function rs(sig: Uint8Array): { r: bigint; s: bigint } {
  const lenR = sig[3]!;
  const r = BigInt(`0x${Buffer.from(sig.subarray(4, 4 + lenR)).toString('hex')}`);
  const lenS = sig[5 + lenR]!;
  const s = BigInt(`0x${Buffer.from(sig.subarray(6 + lenR, 6 + lenR + lenS)).toString('hex')}`);
  return { r, s };
}

describe('checksig encoding rules', () => {
  const { tx, sig, pub, source } = signedInput();
  const hashType = sig[sig.length - 1]!;
  const { r, s } = rs(sig);

  it('accepts the signature as made (re-encoded identically)', () => {
    assert.deepEqual(Buffer.from(der(r, s, hashType)), Buffer.from(sig));
    assert.deepEqual(checkSig(tx, 0, source, sig, pub), { ok: true });
  });

  it('refuses the same signature with a high S (n - s)', () => {
    assert.equal(checkSig(tx, 0, source, der(r, N - s, hashType), pub).ok, false);
  });

  it('refuses non-strict DER (a needless leading zero on R)', () => {
    assert.equal(checkSig(tx, 0, source, der(r, s, hashType, 1), pub).ok, false);
  });

  it('refuses a sighash type without FORKID, and an undefined one', () => {
    assert.equal(checkSig(tx, 0, source, der(r, s, hashType & ~0x40), pub).ok, false);
    assert.equal(checkSig(tx, 0, source, der(r, s, 0x44), pub).ok, false);
  });

  it('refuses a malformed public key', () => {
    const bad = Uint8Array.from(pub);
    bad[0] = 0x05;
    assert.equal(checkSig(tx, 0, source, sig, bad).ok, false);
  });
});
