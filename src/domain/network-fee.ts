// The network (mining) fee a completed transfer must pay, and the funding it needs. Pure.
// The funding input's whole value goes to the miner: outputs are fixed by the owners'
// signatures, so there is no change output.
import type { ParsedTransfer } from './parsed-transfer.js';

/** Bytes a cosign adds to each token input: the approver's signature push (1 + 72 at most). */
export const APPROVER_SIG_PUSH_MAX = 73;
/** A P2PKH funding input: outpoint 36, script length 1, <sig> 73, <pubkey> 34, sequence 4. */
export const FUNDING_INPUT_MAX = 148;

export function networkFee(sizeBytes: number, satoshisPerKb: bigint): bigint {
  const size = BigInt(sizeBytes);
  return (size * satoshisPerKb + 999n) / 1000n;
}

/** An upper bound of the completed transaction's size. */
export function completedSizeBound(parsed: ParsedTransfer): number {
  const inputs = parsed.tx.inputs.length;
  const varintGrowth = varIntSize(inputs + 1) - varIntSize(inputs);
  return parsed.size + inputs * APPROVER_SIG_PUSH_MAX + FUNDING_INPUT_MAX + varintGrowth;
}

/**
 * The smallest funding output value that pays the network fee of the completed transaction:
 * the fee, plus whatever the outputs hold beyond the token inputs' satoshis.
 */
export function requiredFunding(
  parsed: ParsedTransfer,
  inputSatoshis: bigint,
  satoshisPerKb: bigint,
): bigint {
  const outputSatoshis = parsed.tx.outputs.reduce((sum, o) => sum + BigInt(o.satoshis ?? 0), 0n);
  const fee = networkFee(completedSizeBound(parsed), satoshisPerKb);
  const shortfall = outputSatoshis - inputSatoshis;
  return fee + (shortfall > 0n ? shortfall : 0n);
}

function varIntSize(n: number): number {
  if (n < 0xfd) return 1;
  if (n <= 0xffff) return 3;
  return n <= 0xffffffff ? 5 : 9;
}
