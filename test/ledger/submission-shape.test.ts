// The devnet's ARC intake walks the extended format and BEEF before @bsv/sdk reads them: a few
// hostile bytes announcing billions of inputs, transactions or merkle leaves (or an input whose
// output index makes fromEF allocate four billion slots) are refused instead of running the
// process out of memory, and every real EF and BEEF still decodes to the same transactions.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Beef, LockingScript, MerklePath, Transaction, UnlockingScript } from '@bsv/sdk';
import fc from 'fast-check';
import { checkBeefShape, efToRaw } from '../../src/ledger/devnet/submission-shape.js';
import { decodeSubmission } from '../../src/ledger/devnet/tx-format.js';

const hex = (h: string) => new Uint8Array(Buffer.from(h, 'hex'));

/** A parent with one output and a child spending it (scripts need not be valid for shapes). */
function family(outputIndex = 0): { parent: Transaction; child: Transaction } {
  const parent = new Transaction(1, [], [], 0);
  parent.addInput({
    sourceTXID: '11'.repeat(32),
    sourceOutputIndex: 0,
    unlockingScript: UnlockingScript.fromHex('51'),
    sequence: 0xffffffff,
  });
  for (let i = 0; i <= outputIndex; i++)
    parent.addOutput({
      satoshis: 1000 + i,
      lockingScript: LockingScript.fromHex(`${'76a914'.padEnd(46, 'ab')}88ac`),
    });
  const child = new Transaction(1, [], [], 0);
  child.addInput({
    sourceTransaction: parent,
    sourceOutputIndex: outputIndex,
    unlockingScript: UnlockingScript.fromHex('0051'),
    sequence: 0xfffffffe,
  });
  child.addOutput({ satoshis: 900, lockingScript: LockingScript.fromHex('6a0568656c6c6f') });
  return { parent, child };
}

function beefOf(version: 'v1' | 'v2', withProof: boolean): { bytes: Uint8Array; child: Transaction } {
  const { parent, child } = family();
  if (withProof) parent.merklePath = MerklePath.fromCoinbaseTxidAndHeight(parent.id('hex'), 7);
  const beef = new Beef(version === 'v1' ? 0xefbe0001 : 0xefbe0002);
  beef.mergeTransaction(parent);
  beef.mergeTransaction(child);
  if (version === 'v2') beef.makeTxidOnly(parent.id('hex'));
  return { bytes: Uint8Array.from(beef.toBinary()), child };
}

describe('extended format (BRC-30)', () => {
  it('turns an EF into the standard serialization @bsv/sdk writes', () => {
    for (const index of [0, 3]) {
      const { child } = family(index);
      const standard = efToRaw(Uint8Array.from(child.toEF()));
      assert.equal(standard.ok, true);
      assert.deepEqual(standard.ok && Buffer.from(standard.raw), Buffer.from(child.toBinary()));
    }
  });

  it('refuses counts the bytes cannot hold and an output index of 2^32-1 without allocating', () => {
    const hostile = efToRaw(hex('010000000000000000effeffffff7f00'));
    assert.deepEqual(hostile, { ok: false, reason: 'input count larger than the bytes can hold' });
    // A well-formed EF whose input names output 4294967295: fromEF would allocate 2^32 slots.
    const { child } = family();
    const ef = Buffer.from(child.toEF());
    ef.writeUInt32LE(0xffffffff, 10 + 1 + 32);
    const decoded = decodeSubmission(new Uint8Array(ef));
    assert.equal(decoded.ok, true);
    assert.equal(decoded.ok && decoded.tx.tx.inputs[0]!.sourceOutputIndex, 0xffffffff);
  });

  it('refuses every truncation and trailing bytes of a real EF', () => {
    const ef = Uint8Array.from(family().child.toEF());
    for (let cut = 10; cut < ef.length; cut++)
      assert.equal(efToRaw(ef.subarray(0, cut)).ok, false, `cut ${cut}`);
    const longer = new Uint8Array([...ef, 0]);
    assert.deepEqual(efToRaw(longer), { ok: false, reason: 'trailing bytes after the transaction' });
  });
});

describe('BEEF (V1, V2, atomic)', () => {
  it('accepts what @bsv/sdk writes, and decodes the same subject', () => {
    for (const version of ['v1', 'v2'] as const)
      for (const withProof of [false, true]) {
        const { bytes, child } = beefOf(version, withProof);
        assert.deepEqual(checkBeefShape(bytes), { ok: true }, `${version} proof=${withProof}`);
        const decoded = decodeSubmission(bytes);
        assert.equal(decoded.ok && decoded.tx.txid, child.id('hex'), `${version} proof=${withProof}`);
      }
    const { parent, child } = family();
    const beef = new Beef();
    beef.mergeTransaction(parent);
    beef.mergeTransaction(child);
    const atomic = Uint8Array.from(beef.toBinaryAtomic(child.id('hex')));
    assert.deepEqual(checkBeefShape(atomic), { ok: true });
    assert.equal(decodeSubmission(atomic).ok, true);
  });

  it('refuses hostile counts of transactions, merkle paths and leaves', () => {
    const cases: Record<string, string> = {
      'transaction count larger than the bytes can hold': '0100beef00feffffff7f',
      'merkle path count larger than the bytes can hold': '0100beeffeffffff7f00',
      'merkle path 0: leaf count at level 0 larger than the bytes can hold': '0100beef010701feffffff7f',
    };
    for (const [reason, bytes] of Object.entries(cases)) {
      assert.deepEqual(checkBeefShape(hex(bytes)), { ok: false, reason });
      const decoded = decodeSubmission(hex(bytes));
      assert.equal(decoded.ok, false);
      assert.match(decoded.ok ? '' : decoded.reason, /BEEF cannot be parsed/);
    }
  });

  it('refuses every truncation of a real BEEF', () => {
    for (const version of ['v1', 'v2'] as const) {
      const { bytes } = beefOf(version, true);
      for (let cut = 4; cut < bytes.length; cut++)
        assert.equal(checkBeefShape(bytes.subarray(0, cut)).ok, false, `${version} cut ${cut}`);
    }
  });

  it('never throws on random bytes after a BEEF or EF prefix', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('0100beef', '0200beef', `01010101${'00'.repeat(32)}0100beef`, '010000000000000000ef'),
        fc.uint8Array({ maxLength: 200 }),
        (prefix, tail) => {
          const bytes = new Uint8Array([...hex(prefix), ...tail]);
          const decoded = decodeSubmission(bytes);
          assert.equal(typeof decoded.ok, 'boolean');
        },
      ),
      { numRuns: 3000 },
    );
  });
});
