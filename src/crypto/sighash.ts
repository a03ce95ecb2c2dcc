// Signature hashes (BIP143 with FORKID, as BSV uses) for one input of a transaction.
// The preimage comes from @bsv/sdk; the digest (double SHA-256) from node:crypto.
import { type Script, type SignatureHashCache, type Transaction, TransactionSignature } from '@bsv/sdk';
import { sha256d } from './hash.js';

export type { SignatureHashCache };

/** The 32-byte digest a checksig on input `inputIndex` verifies against. */
export function sighashDigest(
  tx: Transaction,
  inputIndex: number,
  subscript: Script,
  satoshis: bigint,
  scope: number,
  cache?: SignatureHashCache,
): Uint8Array {
  const input = tx.inputs[inputIndex];
  if (input === undefined) throw new RangeError(`input ${inputIndex} does not exist`);
  const sourceTXID = input.sourceTXID ?? input.sourceTransaction?.id('hex');
  if (sourceTXID === undefined) throw new TypeError(`input ${inputIndex} has no source txid`);
  const preimage = TransactionSignature.formatBytes({
    sourceTXID,
    sourceOutputIndex: input.sourceOutputIndex,
    sourceSatoshis: Number(satoshis),
    transactionVersion: tx.version,
    otherInputs: tx.inputs.filter((_, i) => i !== inputIndex),
    outputs: tx.outputs,
    inputIndex,
    subscript,
    inputSequence: input.sequence ?? 0xffffffff,
    lockTime: tx.lockTime,
    scope,
    ...(cache !== undefined && { cache }),
  });
  return sha256d(preimage);
}
