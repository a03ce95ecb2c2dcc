// Accepting a wallet's signed transfer: validate it against the token's rules and the index,
// pick a funding output, cosign, and record ticket + reservations + new outputs in one
// database transaction. Broadcasting is a separate step (broadcast-ticket.ts): the ticket is
// durable before anyone is told about it.
import { completeTransfer } from '../domain/complete-transfer.js';
import { requiredFunding } from '../domain/network-fee.js';
import { parseTransfer } from '../domain/parse-transfer.js';
import { isRefusal } from '../domain/transfer-refusal.js';
import { validateTransfer } from '../domain/validate-transfer.js';
import { AppError } from '../errors/registry.js';
import { isUniqueViolation } from '../store/sql-error.js';
import {
  InputConflictError,
  pickFundingOutput,
  recordSubmission,
  ticketIdBySubmittedTxid,
} from '../store/submission-writes.js';
import { tokenOutputsByOutpoint } from '../store/wallet-queries.js';
import type { ServiceContext } from './context.js';
import { reportTransitions } from './report-transitions.js';

export interface SubmitRequest {
  readonly raw: Uint8Array;
  readonly callbackUrl: string | null;
  readonly callbackSecretEnc: Uint8Array | null;
  readonly apiKeyId: string | null;
}

export interface SubmitResult {
  readonly ticketId: string;
  /** False when the same transaction had been submitted before: its ticket is answered again. */
  readonly created: boolean;
}

export async function submitTransfer(ctx: ServiceContext, req: SubmitRequest): Promise<SubmitResult> {
  const parsed = parseTransfer(req.raw, ctx.token);
  if (isRefusal(parsed)) throw new AppError(parsed.code, parsed.detail);
  const earlier = await ticketIdBySubmittedTxid(ctx.db, parsed.txid);
  if (earlier !== null) return { ticketId: earlier, created: false };

  const known = await tokenOutputsByOutpoint(ctx.db, [...parsed.outpoints]);
  const valid = validateTransfer(parsed, known, ctx.token);
  if (!valid.ok) throw new AppError(valid.code, valid.detail);

  const rate = await ctx.feeRate();
  const inputSatoshis = valid.inputs.reduce((sum, o) => sum + o.satoshis, 0n);
  const need = requiredFunding(parsed, inputSatoshis, rate);
  const ticketId = ctx.newId();
  const submittedAt = ctx.now();
  let txid = '';
  try {
    await ctx.db.transaction(async (tx) => {
      const funding = await pickFundingOutput(tx, need);
      if (funding === null) {
        throw new AppError(
          'FUNDING_EXHAUSTED',
          `no funding output of at least ${need} satoshis is available`,
        );
      }
      const done = completeTransfer(valid, funding, ctx.keys, rate);
      txid = done.txid;
      const owners = (list: readonly { owner: string }[]) => [...new Set(list.map((o) => o.owner))];
      await recordSubmission(tx, {
        ticketId,
        txid: done.txid,
        submittedTxid: parsed.txid,
        rawTx: done.raw,
        inputs: valid.inputs.map((o) => ({ txid: o.txid, vout: o.vout })),
        funding,
        outputs: parsed.tokenOutputs.map((o) => ({
          vout: o.vout,
          owner: o.owner,
          amount: o.amount,
          op: o.op,
          script: parsed.tx.outputs[o.vout]!.lockingScript.toUint8Array(),
          satoshis: BigInt(parsed.tx.outputs[o.vout]!.satoshis ?? 0),
        })),
        senders: owners(valid.inputs),
        receivers: owners(parsed.tokenOutputs),
        callbackUrl: req.callbackUrl,
        callbackSecretEnc: req.callbackSecretEnc,
        apiKeyId: req.apiKeyId,
        now: submittedAt,
      });
    });
  } catch (err) {
    if (err instanceof InputConflictError || isUniqueViolation(err))
      return lostRace(ctx, parsed.txid, parsed.outpoints);
    throw err;
  }
  reportTransitions(ctx, [
    {
      ticketId,
      txid,
      from: null,
      to: 'BROADCASTING',
      reason: null,
      submittedAt,
      at: submittedAt,
      first: true,
    },
  ]);
  return { ticketId, created: true };
}

/** Another submission took an input first: the same transaction answers its ticket, another is refused. */
async function lostRace(
  ctx: ServiceContext,
  submittedTxid: string,
  outpoints: readonly string[],
): Promise<SubmitResult> {
  const same = await ticketIdBySubmittedTxid(ctx.db, submittedTxid);
  if (same !== null) return { ticketId: same, created: false };
  const known = await tokenOutputsByOutpoint(ctx.db, [...outpoints]);
  for (const outpoint of outpoints) {
    const state = known.get(outpoint)?.state;
    if (state === 'reserved') {
      throw new AppError('INPUT_LOCKED', `outpoint ${outpoint} was locked in a previous transaction attempt`);
    }
    if (state === 'spent' || state === undefined)
      throw new AppError('INPUT_SPENT', `outpoint ${outpoint} already spent`);
  }
  throw new AppError(
    'INPUT_LOCKED',
    `an input of this transfer was locked in a previous transaction attempt`,
  );
}
