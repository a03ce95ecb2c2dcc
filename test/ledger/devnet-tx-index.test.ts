// The devnet's on-disk index (devnet.index): every entry put is found again with its value,
// through the grows that rehash it into twice the slots, and after a reopen.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openTxIndex, type TxIndex } from '../../src/ledger/devnet/tx-index.js';
import { tempDir } from './fixtures.js';

const KEYS = 60_000;

function assertAllFound(index: TxIndex, txids: readonly string[], ops: readonly string[]): void {
  txids.forEach((txid, i) => {
    assert.deepEqual(index.getTx(txid), {
      height: i,
      index: i % 7,
      tag: i * 3,
      offset: i * 1000,
      length: i + 1,
    });
  });
  for (const [i, op] of ops.entries()) assert.deepEqual(index.getSpend(op), { height: i, index: 1, tag: 5 });
}

describe('devnet index', () => {
  it('finds every entry through grows and after a reopen, and nothing else', { timeout: 120_000 }, () => {
    const dir = tempDir('devnet-index-');
    const path = join(dir.path, 'devnet.index');
    try {
      const txids = Array.from({ length: KEYS }, () => randomBytes(32).toString('hex'));
      const ops = txids.slice(0, KEYS / 2).map((txid, i) => `${txid}:${i % 3}`);
      let index = openTxIndex(path, true);
      txids.forEach((txid, i) => {
        index.putTx(txid, { height: i, index: i % 7, tag: i * 3, offset: i * 1000, length: i + 1 });
      });
      for (const [i, op] of ops.entries()) index.putSpend(op, { height: i, index: 1, tag: 5 });
      // Written again: overwritten in place, counted once.
      index.putSpend(ops[0]!, { height: 0, index: 1, tag: 5 });
      assert.equal(index.count, KEYS + KEYS / 2);
      assertAllFound(index, txids, ops);
      const absent = randomBytes(32).toString('hex');
      assert.equal(index.getTx(absent), undefined);
      assert.equal(index.getSpend(`${absent}:0`), undefined);
      // A txid is not an outpoint's key, nor the other way round.
      assert.equal(index.getSpend(txids[KEYS - 1]!), undefined);
      // At most half full: 90,000 entries grew 16,384 slots three times, to 262,144 (48 bytes each).
      assert.equal(statSync(path).size, 64 + 262_144 * 48);
      index.close();
      index = openTxIndex(path, false);
      assert.equal(index.count, KEYS + KEYS / 2);
      assertAllFound(index, txids, ops);
      index.close();
    } finally {
      dir.remove();
    }
  });
});
