// Seize and reissue (issue 32): on this token the issuer cannot move anyone's outputs, so a
// seizure is an order (a reference such as a court order's number, a reason) whose outpoints,
// each of a frozen or blacklisted address, are never cosigned again (OUTPUT_SEIZED), their value
// counted as seized, and the same value minted out of the treasury to the address the order
// names. genesis = treasury + circulating + burned + seized holds before and after.
//
// Crash safety (migration 038): the reissue is built and signed first, then kept with the order,
// its outpoints and its record in one transaction (the seizure is 'prepared'), and only then
// submitted; its txid is recorded once its ticket is committed ('reissued'). A process killed at
// any point leaves one of: nothing (before that transaction: the order is sent again as new); a
// prepared seizure whose reissue has no ticket, or a ticket not yet broadcast, or broadcast and
// not recorded. Every later attempt (the same order sent again, or the recovery pass the api
// runs at its start and every minute: finishPreparedSeizures) submits the kept bytes, never a
// second mint: a transaction submitted again is answered with its first ticket (broadcast again
// while still broadcasting; the ledger answers "already known"), and the tracker broadcasts a
// committed ticket anyway. Seized outputs count as seized from the moment the order commits, and
// the reissue as circulating once its ticket commits: every point an audit can see balances.
import { setTimeout as delay } from 'node:timers/promises';
import { isValidAddress } from '../../domain/address.js';
import { DomainError } from '../../domain/domain-error.js';
import { MAX_VOUT } from '../../domain/index-bounds.js';
import { blacklistedAmong } from '../../store/controls/blacklist-store.js';
import { pauseState } from '../../store/controls/pause-store.js';
import {
  keepReissue,
  keptReissue,
  preparedSeizures,
  prepareSeizure,
  recordReissue,
  replaceStaleReissue,
  type Seizure,
  seizableOutputs,
  seizureByReference,
} from '../../store/controls/seizure-store.js';
import type { ApiContext } from '../context.js';
import { checkMintRecipient, mintTokens } from '../supply/mint-tokens.js';
import { isTakenInput, type PreparedTransaction } from '../supply/send-from-held-address.js';

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

/**
 * Times a kept reissue is built again because another treasury transfer took its inputs before
 * it was submitted (an admin mint racing it, or one made while a killed process left it unsent).
 */
const REBUILDS = 3;

/**
 * Pauses before the kept reissue is submitted again while a transfer the network has not yet
 * answered holds one of its inputs (INPUT_LOCKED): about 3 s in all within a request, after which
 * the seizure is answered prepared and the recovery pass goes on.
 */
const HELD_INPUT_WAITS_MS: readonly number[] = [100, 200, 400, 800, 1500];

/** Ends the first attempt's keep step when the order must not be kept (never leaves this file). */
class NotKept extends Error {
  constructor(
    readonly answer:
      | { readonly kind: 'refused'; readonly why: string }
      | { readonly kind: 'exists'; readonly seizure: Seizure },
  ) {
    super('the order was not kept');
  }
}

export async function seizeAndReissue(
  ctx: ApiContext,
  mintKey: Uint8Array,
  req: SeizureRequest,
): Promise<SeizureOutcome> {
  if (!isValidAddress(req.reissueTo))
    throw new DomainError('INVALID_ADDRESS', `invalid address: ${req.reissueTo}`);
  // Refused whole, before anything is seized, where the reissue's mint would be refused.
  checkMintRecipient(ctx.token, req.reissueTo);
  const parsed = [...new Set(req.outpoints)].map((o) => {
    const m = OUTPOINT.exec(o);
    if (m === null) return null;
    return { txid: m[1]!, vout: Number(m[2]) };
  });
  if (parsed.length === 0 || parsed.some((o) => o === null))
    return { kind: 'refused', why: 'outpoints must be one or more <txid>_<vout>' };
  const outpoints = parsed as { txid: string; vout: number }[];
  const past = outpoints.find((o) => o.vout > MAX_VOUT);
  if (past !== undefined)
    return { kind: 'refused', why: `${past.txid}_${past.vout} is not a known token output` };
  // The reference is the order's identity: sent again, it is answered, or completed. It is read
  // after the outputs, so that the same order committed between the two reads (sent twice at
  // once) is answered rather than refused for the outputs it seized.
  const checked = await seizableOutputs(ctx.db, outpoints);
  const standing = await seizureByReference(ctx.db, req.reference);
  if (standing !== null) return answerStanding(ctx, mintKey, standing, req);
  // A pause stops the reissue's mint: refuse the order whole rather than half-done.
  if ((await pauseState(ctx.db)).paused)
    throw new DomainError(
      'TRANSFERS_PAUSED',
      'transfers are paused: the reissue cannot be minted; unpause first',
    );
  // The cosignature would refuse a reissue paying a blacklisted address: refuse the order now,
  // before it is kept with a reissue that could never be submitted (a frozen one: mintTokens).
  if ((await blacklistedAmong(ctx.db, [req.reissueTo])).size > 0)
    throw new DomainError(
      'ADDRESS_BLACKLISTED',
      `${req.reissueTo} is blacklisted: the reissue cannot be minted to it`,
    );
  if (checked.kind === 'refused') return checked;
  const order = {
    id: ctx.newId(),
    reference: req.reference,
    reason: req.reason,
    reissueTo: req.reissueTo,
    actor: req.actor,
    at: ctx.now(),
  };
  // mintTokens builds and signs the reissue and hands it to `keep` before submitting it: the
  // order is recorded with those bytes there, so nothing is submitted that is not kept.
  let kept: { seizure: Seizure; reissue: Uint8Array } | null = null;
  const prepared: PreparedTransaction = {
    earlier: async () => null,
    keep: async (reissue) => {
      const done = await prepareSeizure(ctx.db, order, outpoints, { amount: checked.amount, reissue });
      if (done.kind !== 'prepared') throw new NotKept(done);
      ctx.controls?.counted?.change('seize');
      kept = done;
      return done.reissue;
    },
  };
  try {
    const minted = await mintTokens(ctx, mintKey, { to: req.reissueTo, amount: checked.amount }, prepared);
    const seizure = await recorded(ctx, kept!.seizure, minted.txid);
    return { kind: 'done', seizure, created: true };
  } catch (err) {
    if (err instanceof NotKept) {
      if (err.answer.kind === 'refused') return err.answer;
      return answerStanding(ctx, mintKey, err.answer.seizure, req);
    }
    if (kept === null || !isTakenInput(err)) throw err;
    const { seizure, reissue } = kept as { seizure: Seizure; reissue: Uint8Array };
    const stale = isHeldInput(err) ? null : reissue;
    return { kind: 'done', seizure: await finishSeizure(ctx, mintKey, seizure, stale), created: true };
  }
}

/** The order recorded before under this reference: answered when it is this one, completed if need be. */
async function answerStanding(
  ctx: ApiContext,
  mintKey: Uint8Array,
  seizure: Seizure,
  req: SeizureRequest,
): Promise<SeizureOutcome> {
  const wanted = new Set(req.outpoints);
  const same =
    seizure.reissueTo === req.reissueTo &&
    seizure.outputs.length === wanted.size &&
    seizure.outputs.every((o) => wanted.has(`${o.txid}_${o.vout}`));
  if (!same) return { kind: 'refused', why: `reference ${req.reference} names another seizure` };
  if (seizure.state === 'reissued') return { kind: 'done', seizure, created: false };
  return { kind: 'done', seizure: await finishSeizure(ctx, mintKey, seizure), created: false };
}

/**
 * Submits a prepared seizure's kept reissue (a ticket committed before answers again) and records
 * its txid. A seizure recorded before migration 038 kept none: one is built and kept first.
 *
 * A kept reissue whose treasury input another transfer took is built again (`stale`: the one
 * just refused), but only once that transfer is answered by the network (INPUT_SPENT), and the
 * store judges that again under the seizure's lock (replaceStaleReissue). While the other
 * transfer is still being broadcast (INPUT_LOCKED) it may fail and free the input, and then a
 * process that read the old bytes could commit them besides a new reissue: the same bytes are
 * submitted again after each of `waits`, and after the last the seizure is answered as it stands,
 * prepared, for the recovery pass to go on with.
 */
export async function finishSeizure(
  ctx: ApiContext,
  mintKey: Uint8Array,
  seizure: Seizure,
  stale: Uint8Array | null = null,
  waits: readonly number[] = HELD_INPUT_WAITS_MS,
): Promise<Seizure> {
  const { db } = ctx;
  let waited = 0;
  for (let rebuilt = 0; ; ) {
    let submitted: Uint8Array | null = null;
    const prepared: PreparedTransaction =
      stale === null
        ? {
            earlier: async () => (submitted = await keptReissue(db, seizure.id)),
            keep: async (raw) => (submitted = await keepReissue(db, seizure.id, raw)),
          }
        : {
            earlier: async () => null,
            keep: async (raw) => {
              submitted = (await replaceStaleReissue(db, seizure.id, stale!, raw)) ?? raw;
              return submitted;
            },
          };
    try {
      const minted = await mintTokens(
        ctx,
        mintKey,
        { to: seizure.reissueTo, amount: seizure.amount },
        prepared,
      );
      return await recorded(ctx, seizure, minted.txid);
    } catch (err) {
      if (submitted === null || !isTakenInput(err)) throw err;
      if (isHeldInput(err)) {
        if (waited >= waits.length) return seizure;
        await delay(waits[waited++]);
        stale = null;
        continue;
      }
      if (rebuilt >= REBUILDS) throw err;
      rebuilt++;
      ctx.log.warn(
        { reference: seizure.reference, code: (err as DomainError).code },
        "a seizure's kept reissue lost its treasury inputs before it was submitted; building it again",
      );
      stale = submitted;
    }
  }
}

/**
 * Completes every prepared seizure (a process killed mid-seizure, a ledger that was down): run by
 * the api at its start and every minute. Skipped while paused (no reissue can be cosigned).
 * Answers how many were completed; one that fails is logged and tried again next time.
 */
export async function finishPreparedSeizures(ctx: ApiContext, mintKey: Uint8Array): Promise<number> {
  const waiting = await preparedSeizures(ctx.db);
  if (waiting.length === 0 || (await pauseState(ctx.db)).paused) return 0;
  let finished = 0;
  for (const seizure of waiting) {
    try {
      // No pause for a held input here: the pass comes again in a minute.
      const done = await finishSeizure(ctx, mintKey, seizure, null, []);
      if (done.state !== 'reissued') {
        ctx.log.info(
          { reference: seizure.reference },
          "a prepared seizure's reissue waits for a transfer holding its treasury inputs to be answered",
        );
        continue;
      }
      ctx.log.warn(
        { reference: seizure.reference, reissueTxid: done.reissueTxid },
        'a prepared seizure was completed: its kept reissue submitted',
      );
      finished++;
    } catch (err) {
      ctx.log.error(
        { err, reference: seizure.reference },
        'completing a prepared seizure failed; tried again later',
      );
    }
  }
  return finished;
}

async function recorded(ctx: ApiContext, seizure: Seizure, txid: string): Promise<Seizure> {
  await recordReissue(ctx.db, seizure.id, txid);
  return { ...seizure, state: 'reissued', reissueTxid: txid };
}

/** Refused because a transaction not yet answered by the network holds an input: it may free it. */
function isHeldInput(err: unknown): boolean {
  return err instanceof DomainError && err.code === 'INPUT_LOCKED';
}
