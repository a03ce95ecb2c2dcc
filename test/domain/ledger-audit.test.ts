import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Transaction, UnlockingScript } from '@bsv/sdk';
import { lockingScriptOf } from '../../src/crypto/script-objects.js';
import type { Bsv21Inscription } from '../../src/domain/bsv21.js';
import { balancesOf, compareOutputs, recomputeOutputs, supplyOf } from '../../src/domain/ledger-audit.js';
import { buildTokenScript } from '../../src/domain/token-script.js';
import { party } from '../support/token-world.js';

const approver = party('audit approver');
const mint = party('audit mint');
const alice = party('audit alice');
const burn = party('audit burn');

function tokenTx(inputs: [string, number][], outputs: [Bsv21Inscription, Uint8Array][]) {
  const tx = new Transaction(1, [], [], 0);
  for (const [txid, vout] of inputs)
    tx.addInput({
      sourceTXID: txid,
      sourceOutputIndex: vout,
      sequence: 0xffffffff,
      unlockingScript: new UnlockingScript(),
    });
  for (const [inscription, ownerPkh] of outputs) {
    tx.addOutput({
      satoshis: 1,
      lockingScript: lockingScriptOf(
        buildTokenScript({ inscription, ownerPkh, approver: approver.publicKey }),
      ),
    });
  }
  return { txid: tx.id('hex'), raw: tx.toUint8Array() };
}

describe('ledger audit (pure)', () => {
  const genesisFunding = 'f'.repeat(64);
  const genesis = tokenTx([[genesisFunding, 0]], [[{ op: 'deploy+mint', amt: 1000n, dec: 0 }, mint.pkh]]);
  const tokenId = `${genesis.txid}_0`;
  const spend = tokenTx(
    [[genesis.txid, 0]],
    [
      [{ op: 'transfer', id: tokenId, amt: 100n }, alice.pkh],
      [{ op: 'burn', id: tokenId, amt: 50n }, burn.pkh],
      [{ op: 'transfer', id: tokenId, amt: 25n }, burn.pkh],
      [{ op: 'transfer', id: tokenId, amt: 825n }, mint.pkh],
    ],
  );
  const foreign = tokenTx(
    [['e'.repeat(64), 1]],
    [[{ op: 'transfer', id: `${'a'.repeat(64)}_0`, amt: 9n }, alice.pkh]],
  );
  const token = { tokenId, mintAddress: mint.address, burnAddress: burn.address };

  it('rebuilds outputs from raw bytes: spent ones marked, other tokens left out', () => {
    const outputs = recomputeOutputs([genesis, spend, foreign], tokenId);
    assert.deepEqual(
      [...outputs.keys()].sort(),
      [`${genesis.txid}_0`, ...[0, 1, 2, 3].map((v) => `${spend.txid}_${v}`)].sort(),
    );
    assert.equal(outputs.get(`${genesis.txid}_0`)?.spent, true);
    assert.equal(outputs.get(`${spend.txid}_1`)?.op, 'burn');
  });

  it('splits the supply: burns, redemptions to the burn address, treasury, circulating', () => {
    const split = supplyOf(recomputeOutputs([genesis, spend], tokenId), token);
    assert.deepEqual(split, { circulating: 100n, treasury: 825n, burned: 50n, redeemed: 25n, seized: 0n });
    // A seized output (issue 32) leaves circulating for seized; the parts still add up.
    const outputs = recomputeOutputs([genesis, spend], tokenId);
    const alices = [...outputs].find(([, o]) => o.owner === alice.address)![0];
    assert.deepEqual(supplyOf(outputs, token, new Set([alices])), {
      circulating: 0n,
      treasury: 825n,
      burned: 50n,
      redeemed: 25n,
      seized: 100n,
    });
    const balances = balancesOf(recomputeOutputs([genesis, spend], tokenId));
    assert.equal(balances.get(alice.address), 100n);
    assert.equal(balances.get(burn.address), 25n);
  });

  it('reports each field that differs, and outputs present on one side only', () => {
    const truth = recomputeOutputs([genesis, spend], tokenId);
    const index = new Map(truth);
    const key = `${spend.txid}_0`;
    index.set(key, { ...truth.get(key)!, amount: 101n, spent: true });
    index.delete(`${spend.txid}_3`);
    index.set('x_9', { owner: alice.address, amount: 1n, op: 'transfer', spent: false });
    assert.deepEqual(compareOutputs(truth, truth), []);
    assert.deepEqual(
      compareOutputs(index, truth).map((d) => [d.outpoint, d.field, d.index, d.recomputed]),
      [
        [key, 'amount', '101', '100'],
        [key, 'spent', 'true', 'false'],
        [`${spend.txid}_3`, 'presence', 'absent', 'present'],
        ['x_9', 'presence', 'present', 'absent'],
      ].sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0)),
    );
  });
});
