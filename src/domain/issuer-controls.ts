// The issuer's controls at the cosignature (issue 32; docs/operations.md, "Issuer's runbook"):
// the pause, the blacklist, seized outputs and the amount limits. Pure: the submission batch's
// look-ups (store/submissions/submission-lookups.ts) answer what the database holds, these say
// whether a transfer may be cosigned.
import type { Refusal } from './transfer-refusal.js';

/** The parts of a transfer the controls look at. */
export interface ControlledTransfer {
  /** `<txid>_<vout>` of every input. */
  readonly outpoints: readonly string[];
  /** Owners of its inputs (each once or more). */
  readonly senders: readonly string[];
  /** The token outputs it spends: their owners and amounts. */
  readonly inputs: readonly { readonly owner: string; readonly amount: bigint }[];
  readonly outputs: readonly { readonly owner: string; readonly amount: bigint; readonly op: string }[];
}

/** What the amount limits look at: who sends, what, and to whom. */
export type SendingTransfer = Pick<ControlledTransfer, 'senders' | 'inputs' | 'outputs'>;

export interface OperatorAddresses {
  readonly mintAddress: string;
  readonly feeAddress: string;
  readonly burnAddress: string;
}

export interface AmountLimits {
  /** Most a transfer may send to others, atomic units; null: no limit. */
  readonly perTransfer: bigint | null;
  /** Most an address may send to others in a UTC day, atomic units; null: no limit. */
  readonly perAddressPerDay: bigint | null;
}

/** Whether every input is the operator's own (mint treasury or fee address): mint, burn, reissue. */
export function isOperatorMove(t: Pick<ControlledTransfer, 'senders'>, op: OperatorAddresses): boolean {
  return t.senders.length > 0 && t.senders.every((s) => s === op.mintAddress || s === op.feeAddress);
}

/**
 * What a transfer sends to others: over the owners of its inputs and outputs, what each gains
 * beyond what its own inputs put in (the fee output counts: it leaves the sender too; burns are
 * nobody's gain). Change back to a sender moves nothing, and a recipient that adds an input of
 * its own still counts as receiving everything beyond that input: otherwise a recipient
 * cosigning a 1-unit input made the whole payment "sent to a sender", past every limit. The
 * daily sum in the store counts the same way (store/submissions/daily-limit-hold.ts).
 */
export function amountSent(t: Pick<SendingTransfer, 'inputs' | 'outputs'>): bigint {
  const net = new Map<string, bigint>();
  for (const o of t.outputs) if (o.op !== 'burn') net.set(o.owner, (net.get(o.owner) ?? 0n) + o.amount);
  for (const i of t.inputs) net.set(i.owner, (net.get(i.owner) ?? 0n) - i.amount);
  let sent = 0n;
  for (const amount of net.values()) if (amount > 0n) sent += amount;
  return sent;
}

/**
 * While paused nothing is cosigned but the issuer's own burns (USDC's pause: burning, freezing
 * and unpausing still work; minting and transfers do not).
 */
export function pausedRefusal(paused: boolean, t: ControlledTransfer, op: OperatorAddresses): Refusal | null {
  if (!paused) return null;
  const senders = new Set(t.senders);
  const operatorBurn =
    isOperatorMove(t, op) &&
    t.outputs.some((o) => o.op === 'burn') &&
    t.outputs.every((o) => o.op === 'burn' || senders.has(o.owner));
  if (operatorBurn) return null;
  return {
    ok: false,
    code: 'TRANSFERS_PAUSED',
    detail: 'the issuer has paused transfers: nothing is cosigned until they are unpaused',
  };
}

/** A blacklisted address can neither send nor receive. */
export function blacklistRefusal(t: ControlledTransfer, blacklisted: ReadonlySet<string>): Refusal | null {
  const hit = [...new Set([...t.senders, ...t.outputs.map((o) => o.owner)])].filter((a) =>
    blacklisted.has(a),
  );
  if (hit.length === 0) return null;
  return {
    ok: false,
    code: 'ADDRESS_BLACKLISTED',
    detail: `${hit.join(', ')} ${hit.length === 1 ? 'is' : 'are'} blacklisted: the service cosigns no transfer from or to ${hit.length === 1 ? 'it' : 'them'}`,
  };
}

/** Seized outputs are never cosigned again: their value was reissued. */
export function seizedRefusal(t: ControlledTransfer, seized: ReadonlySet<string>): Refusal | null {
  const hit = t.outpoints.filter((o) => seized.has(o));
  if (hit.length === 0) return null;
  return {
    ok: false,
    code: 'OUTPUT_SEIZED',
    detail: `${hit.join(', ')} ${hit.length === 1 ? 'was' : 'were'} seized: the service never cosigns ${hit.length === 1 ? 'it' : 'them'} again`,
  };
}

/**
 * The amount limits, for wallets' transfers (the operator's own moves are not limited):
 * per transfer, then per sender per day (what it sent since the day began plus this transfer).
 */
export function limitRefusal(
  t: SendingTransfer,
  limits: AmountLimits,
  sentToday: ReadonlyMap<string, bigint>,
  op: OperatorAddresses,
): Refusal | null {
  if (isOperatorMove(t, op)) return null;
  const sent = amountSent(t);
  if (sent === 0n) return null;
  if (limits.perTransfer !== null && sent > limits.perTransfer)
    return {
      ok: false,
      code: 'TRANSFER_LIMIT_EXCEEDED',
      detail: `the transfer sends ${sent}, above the limit of ${limits.perTransfer} per transfer`,
    };
  if (limits.perAddressPerDay !== null) {
    for (const sender of new Set(t.senders)) {
      const before = sentToday.get(sender) ?? 0n;
      if (before + sent > limits.perAddressPerDay)
        return {
          ok: false,
          code: 'DAILY_LIMIT_EXCEEDED',
          detail: `${sender} has sent ${before} today; ${sent} more would pass the daily limit of ${limits.perAddressPerDay}`,
        };
    }
  }
  return null;
}

/**
 * The senders whose daily sums a batch must hold: those of every transfer the daily limit applies
 * to (all but the operator's own moves; taken before the inputs' amounts are read).
 */
export function dailyLimitedSenders(
  transfers: readonly Pick<SendingTransfer, 'senders'>[],
  op: OperatorAddresses,
): string[] {
  const senders = new Set<string>();
  for (const t of transfers) {
    if (isOperatorMove(t, op)) continue;
    for (const sender of t.senders) senders.add(sender);
  }
  return [...senders].sort();
}

/**
 * The daily limit over a batch, in its order: each transfer against what its senders sent
 * before the batch (`sentBefore`, every transaction committed and not failed since the day
 * began) plus what the batch's earlier transfers that pass send. Answers, per transfer, its
 * refusal or null.
 */
export function dailyLimitRefusals(
  transfers: readonly SendingTransfer[],
  perAddressPerDay: bigint,
  sentBefore: ReadonlyMap<string, bigint>,
  op: OperatorAddresses,
): (Refusal | null)[] {
  const sentNow = new Map(sentBefore);
  return transfers.map((t) => {
    const refusal = limitRefusal(t, { perTransfer: null, perAddressPerDay }, sentNow, op);
    if (refusal !== null || isOperatorMove(t, op)) return refusal;
    const sent = amountSent(t);
    for (const sender of new Set(t.senders)) sentNow.set(sender, (sentNow.get(sender) ?? 0n) + sent);
    return null;
  });
}

/** The start of the UTC day `at` falls in: the daily limit counts from it. */
export function utcDayStart(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
}

/** Addresses that cannot be blacklisted: the operator's own. */
export function unlistableReason(address: string, op: OperatorAddresses): string | null {
  if (address === op.mintAddress) return 'the mint address (the treasury) cannot be blacklisted';
  if (address === op.feeAddress) return 'the fee address cannot be blacklisted';
  if (address === op.burnAddress) return 'the burn address cannot be blacklisted';
  return null;
}
