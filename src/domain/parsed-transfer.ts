// What a submitted transfer is once parsed (parse-transfer.ts), in a module of its own: the
// fee and the network's policy read it (network-fee.ts, ledger-policy.ts) and parsing asks the
// policy, so the shape cannot live with the parser without an import circle.
import type { Transaction } from '@bsv/sdk';

export interface TokenOutputOut {
  readonly vout: number;
  readonly op: 'transfer' | 'burn';
  readonly owner: string;
  readonly amount: bigint;
}

export interface ParsedTransfer {
  readonly tx: Transaction;
  /** The bytes as submitted. */
  readonly raw: Uint8Array;
  readonly txid: string;
  readonly size: number;
  /** `<txid>_<vout>` of each input, in input order. */
  readonly outpoints: readonly string[];
  readonly tokenOutputs: readonly TokenOutputOut[];
}
