// The writer checks each token input's owner signature, not only the approver's: a caller
// holding the writer token (ADR 0007: treated as a stranger holding it) that signs alice's
// outputs over to itself with its own key, and the approver part with the approver key, is
// refused, since the owner signature's key is not alice's. Token rules, rule 3.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Transaction, UnlockingScript } from '@bsv/sdk';
import { lockingScriptOf, unlockingScriptOf } from '../../src/crypto/script-objects.js';
import { signDigest } from '../../src/crypto/secp256k1.js';
import { sighashDigest } from '../../src/crypto/sighash.js';
import { SIGHASH_ALL_FORKID } from '../../src/crypto/signature-encoding.js';
import { txidOf } from '../../src/crypto/txid.js';
import { concatBytes, pushData, readChunks } from '../../src/domain/script-chunks.js';
import { checkSubmission, type IndexedOutput } from '../../src/writer/submission-check.js';
import { buildTransfer, tokenOutput } from '../support/build-transfer.js';
import { aSubmission } from '../support/submission-fixture.js';
import { party, TokenWorld } from '../support/token-world.js';

const NOW = new Date('2026-11-27T10:00:00Z');
const BOUNDS = { maxClockSkewMs: 30_000, maxFirstLookMs: 60_000 };

describe('the writer checks the owner signatures', () => {
  it("refuses a transfer of alice's outputs signed by a thief, not by alice", () => {
    const world = new TokenWorld();
    const alice = party('alice');
    const thief = party('thief');
    const inputs = world.credit(alice, [600_000n, 400_000n]);
    // The thief signs alice's inputs with its own key (the owner part of each unlocking script).
    const raw0 = buildTransfer({
      inputs,
      outputs: [tokenOutput(thief, 1_000_000n, world.config.tokenId, world.config.approver)],
      signer: thief,
    });
    const tx = Transaction.fromBinary(raw0);
    const funding = world.fundingOutput(10_000n);
    tx.addInput({
      sourceTXID: funding.txid,
      sourceOutputIndex: funding.vout,
      unlockingScript: new UnlockingScript(),
      sequence: 0xffffffff,
    });
    // The approver's ALL|FORKID signature, as the holder of the approver key (the writer token) makes it.
    for (const [i, input] of inputs.entries()) {
      const digest = sighashDigest(
        tx,
        i,
        lockingScriptOf(input.lockingScript),
        input.satoshis,
        SIGHASH_ALL_FORKID,
        {},
      );
      const sig = concatBytes([
        signDigest(digest, world.approver.privateKey),
        Uint8Array.of(SIGHASH_ALL_FORKID),
      ]);
      const owner = readChunks(tx.inputs[i]!.unlockingScript!.toUint8Array())!;
      tx.inputs[i]!.unlockingScript = unlockingScriptOf(
        concatBytes([pushData(sig), pushData(owner[0]!.data!), pushData(owner[1]!.data!)]),
      );
    }
    const raw = tx.toUint8Array();
    const submission = aSubmission({
      txid: txidOf(raw),
      rawTx: raw,
      inputs: inputs.map((o) => ({ txid: o.txid, vout: o.vout })),
      funding: { txid: funding.txid, vout: funding.vout },
      now: NOW,
      firstCheckAt: new Date(NOW.getTime() + 5_000),
    });
    const known = new Map<string, IndexedOutput>(world.outputs);
    const checked = checkSubmission(submission, known, world.config, NOW, BOUNDS);
    assert.equal(checked.ok, false, checked.ok ? `accepted: ${checked.submission.senders.join(', ')}` : '');
    assert.match(checked.ok ? '' : checked.reason, /^input 0: the owner signature's key is not /);
  });
});
