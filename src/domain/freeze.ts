// The freeze list's rule (issue 12): the service cosigns no transfer that spends an output of a
// frozen address, and mints nothing to one. Pure: the store answers which addresses are frozen.
import type { Refusal } from './transfer-refusal.js';

/** A refusal when an input owner is frozen; null when none is. */
export function frozenInputRefusal(
  inputOwners: Iterable<string>,
  frozen: ReadonlySet<string>,
): Refusal | null {
  const hit = [...new Set(inputOwners)].filter((owner) => frozen.has(owner));
  if (hit.length === 0) return null;
  return {
    ok: false,
    code: 'ADDRESS_FROZEN',
    detail: `${hit.length === 1 ? 'address' : 'addresses'} ${hit.join(', ')} ${hit.length === 1 ? 'is' : 'are'} frozen: the service cosigns no transfer spending ${hit.length === 1 ? 'its' : 'their'} outputs`,
  };
}

/** A refusal when the receiving address of a mint is frozen. */
export function frozenRecipientRefusal(to: string, frozen: ReadonlySet<string>): Refusal | null {
  if (!frozen.has(to)) return null;
  return { ok: false, code: 'ADDRESS_FROZEN', detail: `address ${to} is frozen: nothing is minted to it` };
}

/** Addresses that cannot be frozen: the operator's own (mint, fee, burn). */
export function unfreezableReason(
  address: string,
  operator: { readonly mintAddress: string; readonly feeAddress: string; readonly burnAddress: string },
): string | null {
  if (address === operator.mintAddress) return 'the mint address (the treasury) cannot be frozen';
  if (address === operator.feeAddress) return 'the fee address cannot be frozen';
  if (address === operator.burnAddress) return 'the burn address cannot be frozen';
  return null;
}
