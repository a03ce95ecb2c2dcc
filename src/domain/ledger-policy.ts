// What the network's policy refuses of a completed transfer, checked before cosigning: a
// cosigned transaction handed back and then refused by the ledger leaves a fully signed
// transaction in the wallet's hands for inputs the service releases (FAILED). Pure.
//
// The node's standardness rules (bitcoin-sv IsStandardTx) and ARC's validator refuse:
// - a version outside 1..2 ("version"): checked here;
// - a transaction above the size policy (maxtxsizepolicy, ARC 474; 10,000,000 bytes by
//   default on the node and ARC): checked here against an upper bound of the cosigned size;
// - a non-final transaction (lock time, sequence) and dust (an output below 1 satoshi that is
//   not a data output): refused earlier by parse-transfer (NON_FINAL_TX) and by the output
//   rules (token outputs hold exactly 1 satoshi, the data output 0: FOREIGN_OUTPUT);
// - a non-push-only unlocking script: the service rebuilds every unlocking script itself.
import { completedSizeBound } from './network-fee.js';
import type { ParsedTransfer } from './parsed-transfer.js';
import type { Refusal } from './transfer-refusal.js';

export interface LedgerPolicy {
  readonly minVersion: number;
  readonly maxVersion: number;
  /** The network's largest transaction, bytes (the node's maxtxsizepolicy). */
  readonly maxTxBytes: number;
}

export const STANDARD_LEDGER_POLICY: LedgerPolicy = Object.freeze({
  minVersion: 1,
  maxVersion: 2,
  maxTxBytes: 10_000_000,
});

/** Null when the network's policy takes the cosigned form of this transfer. */
export function ledgerPolicyRefusal(
  parsed: ParsedTransfer,
  policy: LedgerPolicy = STANDARD_LEDGER_POLICY,
): Refusal | null {
  // The node reads the version as a signed 32-bit number.
  const version = parsed.tx.version | 0;
  if (version < policy.minVersion || version > policy.maxVersion) {
    return {
      ok: false,
      code: 'NONSTANDARD_VERSION',
      detail: `transaction version ${version} is not relayed by the network (${policy.minVersion} to ${policy.maxVersion})`,
    };
  }
  const bound = completedSizeBound(parsed);
  if (bound > policy.maxTxBytes) {
    return {
      ok: false,
      code: 'TX_TOO_LARGE',
      detail: `the cosigned transaction would be up to ${bound} bytes, above the network's ${policy.maxTxBytes}`,
    };
  }
  return null;
}
