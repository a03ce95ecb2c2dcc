// spentOutpoints reads each input's outpoint from the bytes as @bsv/sdk does, for the real
// transactions of the vectors and for an outpoint index above 2^31; bytes that are not a whole
// transaction read as null.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Transaction } from '@bsv/sdk';
import { spentOutpoints } from '../../src/domain/spent-outpoints.js';

const vectors = JSON.parse(
  readFileSync(new URL('../vectors/mnee-real-transactions.json', import.meta.url), 'utf8'),
) as { clientValid: string[] };

const bySdk = (hex: string) =>
  Transaction.fromHex(hex).inputs.map((i) => ({ txid: i.sourceTXID!, vout: i.sourceOutputIndex }));

describe('spentOutpoints', () => {
  it('reads the outpoints of real transactions as @bsv/sdk does', () => {
    assert.ok(vectors.clientValid.length >= 2);
    for (const hex of vectors.clientValid) {
      const read = spentOutpoints(Buffer.from(hex, 'hex'));
      assert.deepEqual(read, bySdk(hex));
      assert.ok(read!.length >= 2);
    }
  });

  it('reads an output index above 2^31 unsigned', () => {
    const hex = '0100000001' + 'ab'.repeat(31) + 'cd' + 'feffffff' + '00' + 'ffffffff' + '00' + '00000000';
    assert.deepEqual(spentOutpoints(Buffer.from(hex, 'hex')), [
      { txid: 'cd' + 'ab'.repeat(31), vout: 0xfffffffe },
    ]);
    assert.deepEqual(spentOutpoints(Buffer.from(hex, 'hex')), bySdk(hex));
  });

  it('answers null for bytes that are not a whole transaction', () => {
    const hex = vectors.clientValid[0]!;
    assert.equal(spentOutpoints(Buffer.from(hex.slice(0, 200), 'hex')), null);
    assert.equal(spentOutpoints(Buffer.from(hex + '00', 'hex')), null);
  });
});
