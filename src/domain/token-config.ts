// What the service knows of its token: identity, approver, operator addresses, fees, limits.
import type { FeeTier } from './fee-tiers.js';

export interface TransferLimits {
  readonly maxTxBytes: number;
  readonly maxInputs: number;
  readonly maxOutputs: number;
  /** Bytes of data the one OP_0 OP_RETURN output may carry (the client's extraData limit). */
  readonly maxDataBytes: number;
}

export const DEFAULT_LIMITS: TransferLimits = Object.freeze({
  maxTxBytes: 100_000,
  maxInputs: 100,
  maxOutputs: 100,
  maxDataBytes: 512,
});

export interface TokenConfig {
  /** `<genesis txid>_0` */
  readonly tokenId: string;
  /** The approver's compressed public key (33 bytes). */
  readonly approver: Uint8Array;
  readonly decimals: number;
  readonly symbol: string;
  readonly icon: string;
  readonly feeAddress: string;
  readonly burnAddress: string;
  readonly mintAddress: string;
  readonly feeTiers: readonly FeeTier[];
  readonly limits: TransferLimits;
}
