// Rules 2, 3, 5 and 6 of a submitted transfer (token-rules.md), given the token outputs the
// index holds for its inputs. Rule 7 (not already spent on the ledger) is the index's own
// state here, and the ledger's refusal at broadcast. Pure but for signature checks (crypto).

import { lockingScriptOf } from '../crypto/script-objects.js';
import type { SignatureHashCache } from '../crypto/sighash.js';
import { VerifiedSignatures } from '../crypto/verified-signatures.js';
import { pubKeyHashOf } from './address.js';
import type { Bsv21Op } from './bsv21.js';
import { type FeeTier, feeTierFor } from './fee-tiers.js';
import { checkOwnerSignature } from './owner-signature.js';
import type { ParsedTransfer } from './parsed-transfer.js';
import type { TokenConfig } from './token-config.js';
import type { Refusal } from './transfer-refusal.js';

/** A token output as the index holds it. */
export interface KnownTokenOutput {
  readonly txid: string;
  readonly vout: number;
  readonly owner: string;
  readonly amount: bigint;
  readonly op: Bsv21Op;
  readonly lockingScript: Uint8Array;
  readonly satoshis: bigint;
  /** spent: a transaction spends it; reserved: a live ticket holds it. */
  readonly state: 'unspent' | 'spent' | 'reserved';
}

export type TransferKind = 'transfer' | 'burn' | 'operator';

export interface ValidTransfer {
  readonly ok: true;
  readonly parsed: ParsedTransfer;
  readonly inputs: readonly KnownTokenOutput[];
  readonly kind: TransferKind;
  /**
   * The tokens that change hands, which choose the fee tier: over the owners (the fee address
   * left out), the sum of what each receives beyond what its inputs put in.
   */
  readonly transferred: bigint;
  readonly feeTier: FeeTier | null;
  readonly feePaid: bigint;
  /** The owner signatures' verifications, which completing the transfer need not run again. */
  readonly verifiedSignatures: VerifiedSignatures;
}

export function validateTransfer(
  parsed: ParsedTransfer,
  known: ReadonlyMap<string, KnownTokenOutput>,
  config: TokenConfig,
): ValidTransfer | Refusal {
  const inputs: KnownTokenOutput[] = [];
  for (const outpoint of parsed.outpoints) {
    const output = known.get(outpoint);
    if (output === undefined)
      return refuse('UNKNOWN_INPUT', `outpoint ${outpoint} is not an output of this token`);
    if (output.op === 'burn')
      return refuse('UNKNOWN_INPUT', `outpoint ${outpoint} is burned and cannot be spent`);
    if (output.state === 'spent') return refuse('INPUT_SPENT', `outpoint ${outpoint} already spent`);
    if (output.state === 'reserved') {
      return refuse('INPUT_LOCKED', `outpoint ${outpoint} was locked in a previous transaction attempt`);
    }
    inputs.push(output);
  }

  const cache: SignatureHashCache = {};
  const verified = new VerifiedSignatures();
  for (const [i, input] of inputs.entries()) {
    const ownerPkh = pubKeyHashOf(input.owner);
    if (ownerPkh === null) return refuse('UNKNOWN_INPUT', `input ${i} has no P2PKH owner`);
    const source = {
      lockingScript: lockingScriptOf(input.lockingScript),
      satoshis: input.satoshis,
    };
    const check = checkOwnerSignature(parsed.tx, i, source, ownerPkh, cache, verified);
    if (!check.ok) return refuse(check.code, `input ${i}: ${check.reason}`);
  }

  const totalIn = inputs.reduce((sum, o) => sum + o.amount, 0n);
  const totalOut = parsed.tokenOutputs.reduce((sum, o) => sum + o.amount, 0n);
  if (totalIn !== totalOut) {
    return refuse('TOKEN_NOT_CONSERVED', `inputs carry ${totalIn} atomic units, outputs ${totalOut}`);
  }
  return checkFee(parsed, inputs, config, verified);
}

function checkFee(
  parsed: ParsedTransfer,
  inputs: readonly KnownTokenOutput[],
  config: TokenConfig,
  verifiedSignatures: VerifiedSignatures,
): ValidTransfer | Refusal {
  const inputOwners = new Set(inputs.map((o) => o.owner));
  const gains = ownerGains(parsed, inputs, config.feeAddress);
  const transferred = [...gains.values()].reduce((sum, gain) => sum + gain, 0n);
  const feePaid = parsed.tokenOutputs
    .filter((o) => o.owner === config.feeAddress && o.op === 'transfer')
    .reduce((sum, o) => sum + o.amount, 0n);
  const base = { ok: true as const, parsed, inputs, transferred, feePaid, verifiedSignatures };

  const operators = new Set([config.mintAddress, config.feeAddress]);
  if ([...inputOwners].every((owner) => operators.has(owner))) {
    return { ...base, kind: 'operator', feeTier: null };
  }
  // A burn or redemption: whoever ends up with more than it put in only got burn outputs or is
  // the burn address (and something is burned at all).
  const burnsOnly = [...gains.keys()].every(
    (owner) =>
      owner === config.burnAddress || parsed.tokenOutputs.every((o) => o.owner !== owner || o.op === 'burn'),
  );
  const burns = parsed.tokenOutputs.some((o) => o.op === 'burn' || o.owner === config.burnAddress);
  if (burnsOnly && burns) return { ...base, kind: 'burn', feeTier: null };

  const tier = feeTierFor(config.feeTiers, transferred);
  if (tier === null) return refuse('NO_FEE_TIER', `no single fee tier covers ${transferred} atomic units`);
  if (feePaid < tier.fee) {
    return refuse(
      'FEE_TOO_LOW',
      `fee outputs pay ${feePaid} atomic units, the tier for ${transferred} asks ${tier.fee}`,
    );
  }
  return { ...base, kind: 'transfer', feeTier: tier };
}

/**
 * The tokens that change hands, per owner: what each owner's outputs carry beyond what its
 * inputs put in, for the owners that gain (the fee address left out). A recipient who adds an
 * input of its own gains what it receives less that input, not nothing.
 */
export function ownerGains(
  parsed: Pick<ParsedTransfer, 'tokenOutputs'>,
  inputs: readonly Pick<KnownTokenOutput, 'owner' | 'amount'>[],
  feeAddress: string,
): Map<string, bigint> {
  const net = new Map<string, bigint>();
  for (const o of parsed.tokenOutputs) net.set(o.owner, (net.get(o.owner) ?? 0n) + o.amount);
  for (const i of inputs) net.set(i.owner, (net.get(i.owner) ?? 0n) - i.amount);
  const gains = new Map<string, bigint>();
  for (const [owner, amount] of net) if (amount > 0n && owner !== feeAddress) gains.set(owner, amount);
  return gains;
}

function refuse(code: Refusal['code'], detail: string): Refusal {
  return { ok: false, code, detail };
}
