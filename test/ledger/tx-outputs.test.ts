// A kept parent's outputs read where they lie agree with @bsv/sdk's full parse, for the token's
// real transactions and for a split of many outputs (varint counts past 252 and 65,535 bytes).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { LockingScript, P2PKH, PrivateKey, Transaction } from '@bsv/sdk';
import { coinAt, outputsOf } from '../../src/ledger/devnet/tx-outputs.js';

const vectors = JSON.parse(
  readFileSync(new URL('../vectors/mnee-real-transactions.json', import.meta.url), 'utf8'),
) as { clientValid: string[]; clientInvalid: string[] };

function assertSameOutputs(raw: Uint8Array): void {
  const parsed = Transaction.fromBinary(Array.from(raw));
  const outputs = outputsOf(raw);
  assert.equal(outputs.starts.length, parsed.outputs.length);
  parsed.outputs.forEach((out, vout) => {
    const coin = coinAt(outputs, vout);
    assert.ok(coin !== undefined);
    assert.equal(coin.satoshis, BigInt(out.satoshis ?? 0));
    assert.equal(coin.lockingScript.toHex(), out.lockingScript.toHex());
  });
  assert.equal(coinAt(outputs, parsed.outputs.length), undefined);
}

describe('tx outputs read in place', () => {
  it('agree with a full parse on the real transactions', () => {
    const all = [...vectors.clientValid, ...vectors.clientInvalid];
    assert.ok(all.length > 0);
    for (const hex of all) assertSameOutputs(Buffer.from(hex, 'hex'));
  });

  it('agree on a split of 1,000 outputs with a long script among them', () => {
    const tx = new Transaction();
    tx.addInput({
      sourceTXID: '11'.repeat(32),
      sourceOutputIndex: 3,
      unlockingScript: LockingScript.fromBinary([1, 2, 3]),
      sequence: 0xffffffff,
    });
    const lock = new P2PKH().lock(PrivateKey.fromRandom().toAddress());
    for (let i = 0; i < 1000; i++) tx.addOutput({ satoshis: 1000 + i, lockingScript: lock });
    tx.addOutput({
      satoshis: 2 ** 40 + 7,
      lockingScript: LockingScript.fromBinary(new Array(70_000).fill(0x51)),
    });
    assertSameOutputs(Uint8Array.from(tx.toBinary()));
  });

  it('keeps its own copy of the bytes and refuses a truncated transaction', () => {
    const raw = Buffer.from(vectors.clientValid[0]!, 'hex');
    const outputs = outputsOf(raw);
    assert.notEqual(outputs.raw.buffer, raw.buffer);
    assert.throws(() => outputsOf(raw.subarray(0, raw.length - 10)));
  });
});
