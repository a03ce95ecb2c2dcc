// The devnet takes what the service broadcasts: a cosigned token transfer (owner + approver
// signatures on the token input, a P2PKH funding input paying the fee), through verifySpend's
// fast path; it refuses one whose approver signature is not the approver's.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LockingScript, Transaction, UnlockingScript } from '@bsv/sdk';
import { hash160 } from '../../src/crypto/hash.js';
import { publicKeyOf, signDigest } from '../../src/crypto/secp256k1.js';
import { sighashDigest } from '../../src/crypto/sighash.js';
import { SIGHASH_ALL_FORKID, SIGHASH_OWNER } from '../../src/crypto/signature-encoding.js';
import { concatBytes, pushData } from '../../src/domain/script-chunks.js';
import { buildP2pkhScript, buildTokenScript } from '../../src/domain/token-script.js';
import { createDevnet } from '../../src/ledger/devnet/devnet.js';

const key = (n: number) => Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? n : 0x11));
const owner = key(1);
const approver = key(2);
const funder = key(3);
const stranger = key(4);
const pkh = (k: Uint8Array) => hash160(publicKeyOf(k));
const TOKEN = `${'cd'.repeat(32)}_0`;

const tokenScript = (who: Uint8Array, amt: bigint) =>
  buildTokenScript({
    inscription: { op: 'transfer', id: TOKEN, amt },
    ownerPkh: pkh(who),
    approver: publicKeyOf(approver),
  });

function signed(digest: Uint8Array, k: Uint8Array, scope: number): Uint8Array {
  return concatBytes([signDigest(digest, k), Uint8Array.of(scope)]);
}

function transfer(coinbase: string, approverKey: Uint8Array): Uint8Array {
  const tokenIn = LockingScript.fromBinary([...tokenScript(owner, 1000n)]);
  const fundingIn = LockingScript.fromBinary([...buildP2pkhScript(pkh(funder))]);
  const tx = new Transaction(1, [], [], 0);
  for (const vout of [0, 1]) {
    tx.addInput({
      sourceTXID: coinbase,
      sourceOutputIndex: vout,
      unlockingScript: new UnlockingScript(),
      sequence: 0xffffffff,
    });
  }
  tx.addOutput({ satoshis: 1, lockingScript: LockingScript.fromBinary([...tokenScript(key(5), 1000n)]) });
  const ownerSig = signed(sighashDigest(tx, 0, tokenIn, 1n, SIGHASH_OWNER), owner, SIGHASH_OWNER);
  const approverSig = signed(
    sighashDigest(tx, 0, tokenIn, 1n, SIGHASH_ALL_FORKID),
    approverKey,
    SIGHASH_ALL_FORKID,
  );
  const fundingSig = signed(
    sighashDigest(tx, 1, fundingIn, 500n, SIGHASH_ALL_FORKID),
    funder,
    SIGHASH_ALL_FORKID,
  );
  tx.inputs[0]!.unlockingScript = UnlockingScript.fromBinary([
    ...concatBytes([pushData(approverSig), pushData(ownerSig), pushData(publicKeyOf(owner))]),
  ]);
  tx.inputs[1]!.unlockingScript = UnlockingScript.fromBinary([
    ...concatBytes([pushData(fundingSig), pushData(publicKeyOf(funder))]),
  ]);
  return Uint8Array.from(tx.toBinary());
}

describe('devnet and cosigned token transfers', () => {
  it('accepts a transfer cosigned by the approver and funded by P2PKH, and refuses a foreign approver with 461', async () => {
    const devnet = await createDevnet({
      genesis: [
        { lockingScript: tokenScript(owner, 1000n), satoshis: 1n },
        { lockingScript: buildP2pkhScript(pkh(funder)), satoshis: 500n },
      ],
      blockIntervalMs: 0,
    });
    try {
      const coinbase = devnet.blocks()[0]!.txids[0]!;
      const forged = await devnet.broadcast(transfer(coinbase, stranger));
      assert.equal(forged.ok, false);
      if (!forged.ok) {
        assert.equal(forged.arcCode, 461);
        assert.match(forged.reason, /approver/);
      }
      const good = await devnet.broadcast(transfer(coinbase, approver));
      assert.equal(good.ok, true, JSON.stringify(good));
      await devnet.mine();
      assert.equal((await devnet.status(good.txid)).kind, 'mined');
    } finally {
      await devnet.close();
    }
  });
});
