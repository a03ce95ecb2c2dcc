// indexInBump reads a transaction's index from its BUMP without @bsv/sdk's JavaScript hashing:
// it must agree with MerklePath on every path the devnet writes, and refuse what is not a BUMP.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { MerklePath } from '@bsv/sdk';
import { indexInBump } from '../../src/ledger/arc/bump-index.js';
import { merkleLevels, merklePathHex } from '../../src/ledger/devnet/merkle.js';

const txidOf = (leaf: Uint8Array) => Buffer.from(leaf).reverse().toString('hex');

describe('indexInBump', () => {
  it('agrees with MerklePath for every transaction of blocks of 1 to 37 transactions', () => {
    for (let size = 1; size <= 37; size++) {
      const leaves = Array.from({ length: size }, () => new Uint8Array(randomBytes(32)));
      const levels = merkleLevels(leaves);
      for (let i = 0; i < size; i++) {
        const bump = merklePathHex(levels, i, 800_000 + size);
        const txid = txidOf(leaves[i]!);
        const expected = MerklePath.fromHex(bump).path[0]!.find((l) => l.hash === txid)!.offset;
        assert.equal(indexInBump(bump, txid), expected, `block of ${size}, index ${i}`);
        assert.equal(expected, i);
      }
    }
  });

  it('is null for a transaction the path is not for, and for bytes that are not a BUMP', () => {
    const leaves = Array.from({ length: 6 }, () => new Uint8Array(randomBytes(32)));
    const bump = merklePathHex(merkleLevels(leaves), 3, 100);
    assert.equal(indexInBump(bump, txidOf(new Uint8Array(randomBytes(32)))), null);
    assert.equal(indexInBump(bump.slice(0, -2), txidOf(leaves[3]!)), null, 'cut short');
    assert.equal(indexInBump(`${bump}00`, txidOf(leaves[3]!)), null, 'bytes left over');
    assert.equal(indexInBump('zz', txidOf(leaves[3]!)), null, 'not hex');
    assert.equal(indexInBump('', txidOf(leaves[3]!)), null, 'empty');
  });

  it('a path missing a sibling its walk needs goes to MerklePath, which refuses it', () => {
    const leaves = Array.from({ length: 4 }, () => new Uint8Array(randomBytes(32)));
    const full = merklePathHex(merkleLevels(leaves), 0, 7);
    // Height 7, tree height 2, level 0 with its two leaves, then level 1 with no leaf at all.
    const level0 = full.slice(4, 4 + 2 + 2 * (2 + 2 + 64));
    const broken = `0702${level0}00`;
    assert.equal(indexInBump(broken, txidOf(leaves[0]!)), null);
  });
});
