// A raw transaction parsed by @bsv/sdk only once its layout fits its bytes (tx-shape.ts). The
// sdk's reader trusts every count: the 9 bytes 01000000 feffffff00 announce 16,777,215 inputs,
// and Transaction.fromBinary allocates for them until the process dies of heap exhaustion. Any
// bytes this process did not just make itself (the ledger's, the store's, an operator's, another
// process's) are read through here, or through checkTxShape first. Pure.
import { Transaction } from '@bsv/sdk';
import { checkTxShape } from './tx-shape.js';

/** Bytes that are not one whole raw transaction (standard serialization, nothing after it). */
export class UnreadableTransactionError extends Error {
  override readonly name = 'UnreadableTransactionError';

  constructor(
    /** What does not fit, as checkTxShape says it. */
    readonly reason: string,
    /** The transaction the bytes were taken for, when the caller knows it. */
    readonly txid?: string,
  ) {
    super(`${txid === undefined ? '' : `transaction ${txid}: `}not a whole raw transaction: ${reason}`);
  }
}

/**
 * One whole raw transaction, or UnreadableTransactionError. The shape walk steps over exactly
 * what the sdk reads and refuses trailing bytes, so the sdk reads every byte and no more.
 * fromBinary keeps the bytes it read: id() and toBinary() give back these very bytes (a
 * re-serialization would turn a non-minimal varint into another txid).
 */
export function readTransaction(raw: Uint8Array, txid?: string): Transaction {
  const shape = checkTxShape(raw);
  if (!shape.ok) throw new UnreadableTransactionError(shape.reason, txid);
  return Transaction.fromBinary(raw);
}
