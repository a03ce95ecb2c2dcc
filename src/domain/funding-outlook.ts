// How long the funding pool lasts: each transfer spends one pool output whole, so the
// transfers left are the available outputs that pay a typical transfer's fee, plus what the
// reserve would split into. Pure.
import { networkFee } from './network-fee.js';

/** A typical completed transfer (two token inputs, three outputs, one funding input). */
export const TYPICAL_TRANSFER_BYTES = 1500;

export type FundingLevel = 'ok' | 'low' | 'critical' | 'empty';

export interface FundingFacts {
  /** Available pool outputs that pay at least the typical fee. */
  readonly usableOutputs: number;
  readonly availableOutputs: number;
  /** Satoshis of the reserve output (0 when none). */
  readonly reserveSatoshis: bigint;
  /** Smallest denomination the reserve is split into. */
  readonly smallestDenomination: bigint;
  readonly lowWater: number;
}

export interface FundingOutlook {
  readonly transfersLeft: number;
  /** Of transfersLeft: what the reserve would add once split (an estimate). */
  readonly fromReserve: number;
  readonly level: FundingLevel;
}

export function typicalTransferFee(satoshisPerKb: bigint): bigint {
  return networkFee(TYPICAL_TRANSFER_BYTES, satoshisPerKb);
}

/**
 * ok: at or above the low-water mark; low: below it, with a reserve to refill from;
 * critical: below it with no reserve left, or under a quarter of it; empty: no usable output.
 */
export function fundingOutlook(facts: FundingFacts): FundingOutlook {
  const fromReserve =
    facts.smallestDenomination > 0n ? Number(facts.reserveSatoshis / facts.smallestDenomination) : 0;
  const transfersLeft = facts.usableOutputs + fromReserve;
  let level: FundingLevel;
  if (facts.usableOutputs === 0) level = 'empty';
  else if (facts.availableOutputs >= facts.lowWater) level = 'ok';
  else if (fromReserve === 0 || facts.availableOutputs < facts.lowWater / 4) level = 'critical';
  else level = 'low';
  return { transfersLeft, fromReserve, level };
}
