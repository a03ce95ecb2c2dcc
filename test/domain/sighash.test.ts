// Our BIP143/FORKID preimage is byte-equal to @bsv/sdk's for every sighash type, with and
// without a shared cache.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Transaction, TransactionSignature } from '@bsv/sdk';
import { type SignatureHashCache, sighashPreimage } from '../../src/crypto/sighash.js';
import { buildTransfer, tokenOutput } from '../support/build-transfer.js';
import { lockingFrom, party, TokenWorld } from '../support/token-world.js';

describe('sighash preimage', () => {
  const world = new TokenWorld();
  const alice = party('alice');
  const inputs = world.credit(alice, [10n, 20n, 30n]);
  const out = (amt: bigint) => tokenOutput(party('bob'), amt, world.config.tokenId, world.config.approver);
  const tx = Transaction.fromBinary(
    buildTransfer({ inputs, outputs: [out(25n), out(35n)], signer: alice, version: 2 }),
  );
  tx.inputs[1]!.sequence = 7;

  for (const base of [0x01, 0x02, 0x03]) {
    for (const acp of [0, 0x80]) {
      const scope = base | acp | 0x40;
      it(`matches @bsv/sdk for scope 0x${scope.toString(16)} on every input`, () => {
        const cache: SignatureHashCache = {};
        for (const [i, input] of inputs.entries()) {
          const subscript = lockingFrom(input.lockingScript);
          const theirs = TransactionSignature.formatBytes({
            sourceTXID: input.txid,
            sourceOutputIndex: input.vout,
            sourceSatoshis: Number(input.satoshis),
            transactionVersion: tx.version,
            otherInputs: tx.inputs.filter((_, j) => j !== i),
            outputs: tx.outputs,
            inputIndex: i,
            subscript,
            inputSequence: tx.inputs[i]!.sequence!,
            lockTime: tx.lockTime,
            scope,
          });
          assert.deepEqual(
            Buffer.from(sighashPreimage(tx, i, subscript, input.satoshis, scope, cache)),
            Buffer.from(theirs),
          );
          assert.deepEqual(
            Buffer.from(sighashPreimage(tx, i, subscript, input.satoshis, scope)),
            Buffer.from(theirs),
          );
        }
      });
    }
  }
});
