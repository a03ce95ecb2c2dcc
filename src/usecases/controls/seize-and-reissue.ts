// Seize and reissue (issue 32): on this token the issuer cannot move anyone's outputs, so a
// seizure is an order (a reference such as a court order's number, a reason) whose outpoints,
// each of a frozen or blacklisted address, are never cosigned again (OUTPUT_SEIZED), their value
// counted as seized, and the same value minted out of the treasury to the address the order
// names. genesis = treasury + circulating + burned + seized holds before and after.
//
// Crash safety: the order, its outpoints and its record are one transaction, written before the
// mint; the mint's txid is written after it. An order whose reissue is missing (a crash, an
// empty treasury, a pause) is completed by sending the same order again: the reference is the
// order's identity, so it is recorded once and reissued once it has a txid.
import { isValidAddress } from '../../domain/address.js';
import { DomainError } from '../../domain/domain-error.js';
import { pauseState } from '../../store/controls/pause-store.js';
import { recordReissue, recordSeizure, type Seizure } from '../../store/controls/seizure-store.js';
import type { ApiContext } from '../context.js';
import { mintTokens } from '../supply/mint-tokens.js';

export interface SeizureRequest {
  readonly reference: string;
  readonly reason: string;
  /** `<txid>_<vout>` of each output taken. */
  readonly outpoints: readonly string[];
  readonly reissueTo: string;
  readonly actor: string;
}

export type SeizureOutcome =
  | { readonly kind: 'done'; readonly seizure: Seizure; readonly created: boolean }
  | { readonly kind: 'refused'; readonly why: string };

const OUTPOINT = /^([0-9a-f]{64})_(0|[1-9]\d{0,9})$/;

export async function seizeAndReissue(
  ctx: ApiContext,
  mintKey: Uint8Array,
  req: SeizureRequest,
): Promise<SeizureOutcome> {
  if (!isValidAddress(req.reissueTo))
    throw new DomainError('INVALID_ADDRESS', `invalid address: ${req.reissueTo}`);
  const outpoints = [...new Set(req.outpoints)].map((o) => {
    const m = OUTPOINT.exec(o);
    if (m === null) return null;
    return { txid: m[1]!, vout: Number(m[2]) };
  });
  if (outpoints.length === 0 || outpoints.some((o) => o === null))
    return { kind: 'refused', why: 'outpoints must be one or more <txid>_<vout>' };
  // A pause stops the reissue's mint: refuse the order whole rather than half-done.
  if ((await pauseState(ctx.db)).paused)
    throw new DomainError(
      'TRANSFERS_PAUSED',
      'transfers are paused: the reissue cannot be minted; unpause first',
    );
  const recorded = await recordSeizure(
    ctx.db,
    {
      id: ctx.newId(),
      reference: req.reference,
      reason: req.reason,
      reissueTo: req.reissueTo,
      actor: req.actor,
      at: ctx.now(),
    },
    outpoints as { txid: string; vout: number }[],
  );
  if (recorded.kind === 'refused') return recorded;
  const seizure = recorded.seizure;
  if (recorded.kind === 'exists') {
    const same =
      seizure.reissueTo === req.reissueTo &&
      seizure.outputs.length === outpoints.length &&
      seizure.outputs.every((o) => req.outpoints.includes(`${o.txid}_${o.vout}`));
    if (!same) return { kind: 'refused', why: `reference ${req.reference} names another seizure` };
    if (seizure.reissueTxid !== null) return { kind: 'done', seizure, created: false };
  } else {
    ctx.controls?.counted?.change('seize');
  }
  const minted = await mintTokens(ctx, mintKey, { to: seizure.reissueTo, amount: seizure.amount });
  await recordReissue(ctx.db, seizure.id, minted.txid);
  return {
    kind: 'done',
    seizure: { ...seizure, reissueTxid: minted.txid },
    created: recorded.kind === 'recorded',
  };
}
