// @bsv/sdk's script interpreter (Spend) on one input: the independent check the fast
// verification path is held against.
import { type LockingScript, Spend, type Transaction } from '@bsv/sdk';

export function interpreterAccepts(
  tx: Transaction,
  i: number,
  locking: LockingScript,
  satoshis: bigint,
): boolean {
  const input = tx.inputs[i]!;
  try {
    return new Spend({
      sourceTXID: input.sourceTXID!,
      sourceOutputIndex: input.sourceOutputIndex,
      sourceSatoshis: Number(satoshis),
      lockingScript: locking,
      transactionVersion: tx.version,
      otherInputs: tx.inputs.filter((_, j) => j !== i),
      outputs: tx.outputs,
      unlockingScript: input.unlockingScript!,
      inputSequence: input.sequence ?? 0xffffffff,
      inputIndex: i,
      lockTime: tx.lockTime,
    }).validate();
  } catch {
    return false;
  }
}
