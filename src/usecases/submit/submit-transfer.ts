// Accepting a wallet's signed transfer (docs/adr/0002-batched-write-path.md): parse it, look up
// what it spends (batched with the submissions arriving meanwhile), validate it against the
// token's rules, the freeze list and the issuer's controls (pause, blacklist, seized outputs,
// limits, screening: usecases/controls/), pick a funding output leased to this process, cosign, and hand it to the
// committer, which writes it with the others of its batch in one database transaction. The
// ticket is answered only once its batch has committed; broadcasting then starts here, not in
// the route, and its outcome is handed back for the callers that wait for it (v1, mint, burn).
import type { CosignOutcome } from '../../domain/cosign-transfer.js';
import { DomainError } from '../../domain/domain-error.js';
import { frozenInputRefusal } from '../../domain/freeze.js';
import { type ControlledTransfer, pausedRefusal, utcDayStart } from '../../domain/issuer-controls.js';
import { requiredFunding } from '../../domain/network-fee.js';
import { parseTransfer } from '../../domain/parse-transfer.js';
import { isRefusal } from '../../domain/transfer-refusal.js';
import type { Submission } from '../../store/submissions/submission-writes.js';
import { ticketById } from '../../store/tickets/ticket-queries.js';
import type { ApiContext } from '../context.js';
import { controlRefusal, screenTransfer } from '../controls/transfer-controls.js';
import { reportTransitions } from '../report-transitions.js';
import type { BroadcastOutcome } from './broadcast-ticket.js';

export interface SubmitRequest {
  readonly raw: Uint8Array;
  readonly callbackUrl: string | null;
  readonly callbackSecretEnc: Uint8Array | null;
  readonly apiKeyId: string | null;
  /** The request submitting it: the ticket's log records carry it (absent: none). */
  readonly requestId?: string;
}

export interface SubmitResult {
  readonly ticketId: string;
  /** False when the same transaction had been submitted before: its ticket is answered again. */
  readonly created: boolean;
  /** The ticket's cosigned transaction. */
  readonly txid: string;
  readonly rawTx: Uint8Array;
  /**
   * Settles once the ledger's answer to the broadcast is recorded (at once for a ticket past
   * broadcasting). Never rejects: trouble is the outcome 'unavailable', and the tracker retries.
   */
  readonly broadcast: Promise<BroadcastOutcome>;
}

/** Funding outputs tried for one transfer whose lease was lost meanwhile. */
const FUNDING_ATTEMPTS = 3;

export async function submitTransfer(ctx: ApiContext, req: SubmitRequest): Promise<SubmitResult> {
  const pipeline = ctx.submissions;
  const parsed = parseTransfer(req.raw, ctx.token);
  if (isRefusal(parsed)) throw new DomainError(parsed.code, parsed.detail);
  const limits = ctx.controls?.limits;
  const looked = await pipeline.lookUp({
    submittedTxid: parsed.txid,
    outpoints: parsed.outpoints,
    receivers: parsed.tokenOutputs.map((o) => o.owner),
    dailySince: limits?.perAddressPerDay != null ? utcDayStart(ctx.now()) : null,
  });
  const { earlierTicketId, known, frozen } = looked;
  if (earlierTicketId !== null) return answerAgain(ctx, earlierTicketId);
  // The outputs it spends, in its input order (absent ones are refused by the validation).
  const inputs = parsed.outpoints.flatMap((o) => {
    const output = known.get(o);
    return output === undefined ? [] : [output];
  });
  const controlled: ControlledTransfer = {
    outpoints: parsed.outpoints,
    senders: inputs.map((o) => o.owner),
    inputs: inputs.map((o) => ({ owner: o.owner, amount: o.amount })),
    outputs: parsed.tokenOutputs.map((o) => ({ owner: o.owner, amount: o.amount, op: o.op })),
  };
  // The pause comes before everything: while paused nothing is cosigned, valid or not.
  const paused = pausedRefusal(looked.paused, controlled, ctx.token);
  if (paused !== null) {
    ctx.controls?.counted?.refused(paused.code);
    throw new DomainError(paused.code, paused.detail);
  }
  const rate = await ctx.feeRate();
  const inputSatoshis = inputs.reduce((sum, o) => sum + o.satoshis, 0n);
  const need = requiredFunding(parsed, inputSatoshis, rate);
  const owners = (list: readonly { owner: string }[]) => [...new Set(list.map((o) => o.owner))];
  // One key may not starve the others of a low funding pool (429 for that key: funding-share.ts).
  await pipeline.share.admit(req.apiKeyId);
  for (let attempt = 1; attempt <= FUNDING_ATTEMPTS; attempt++) {
    // Funding is picked before validation so that one trip to the cosigning thread does both;
    // the refusals keep their order (the rules, then the freeze list, then an empty pool).
    const funding = await pipeline.funding.take(need);
    let done: CosignOutcome;
    try {
      done = await pipeline.cosign({
        raw: req.raw,
        known: inputs,
        funding,
        satoshisPerKb: rate,
        token: ctx.token,
      });
    } catch (err) {
      if (funding !== null) pipeline.funding.giveBack(funding);
      throw err;
    }
    const frozenRefusal = frozenInputRefusal(
      inputs.map((o) => o.owner),
      frozen,
    );
    const controls = frozenRefusal ?? controlRefusal(ctx, controlled, looked);
    const refusal =
      done.kind === 'refused'
        ? new DomainError(done.code, done.detail)
        : controls !== null
          ? new DomainError(controls.code, controls.detail)
          : null;
    if (refusal !== null) {
      if (funding !== null) pipeline.funding.giveBack(funding);
      throw refusal;
    }
    if (funding === null || done.kind !== 'cosigned') {
      throw new DomainError(
        'FUNDING_EXHAUSTED',
        `no funding output of at least ${need} satoshis is available`,
      );
    }
    // Screening last: an outside call, made only for a transfer every other rule allows.
    try {
      await screenTransfer(ctx, parsed.txid, controlled);
    } catch (err) {
      pipeline.funding.giveBack(funding);
      throw err;
    }
    const now = ctx.now();
    const submission: Submission = {
      ticketId: ctx.newId(),
      txid: done.txid,
      submittedTxid: parsed.txid,
      rawTx: done.raw,
      inputs: inputs.map((o) => ({ txid: o.txid, vout: o.vout })),
      funding,
      leaseOwner: pipeline.funding.owner,
      outputs: parsed.tokenOutputs.map((o) => ({
        vout: o.vout,
        owner: o.owner,
        amount: o.amount,
        op: o.op,
        script: parsed.tx.outputs[o.vout]!.lockingScript.toUint8Array(),
        satoshis: BigInt(parsed.tx.outputs[o.vout]!.satoshis ?? 0),
      })),
      senders: owners(inputs),
      receivers: owners(parsed.tokenOutputs),
      callbackUrl: req.callbackUrl,
      callbackSecretEnc: req.callbackSecretEnc,
      apiKeyId: req.apiKeyId,
      requestId: req.requestId ?? null,
      now,
      firstCheckAt: new Date(now.getTime() + ctx.tracker.firstLookAfterMs),
    };
    let verdict: Awaited<ReturnType<typeof pipeline.commit>>;
    try {
      verdict = await pipeline.commit(submission);
    } catch (err) {
      pipeline.funding.giveBack(funding);
      throw err;
    }
    switch (verdict.kind) {
      case 'created':
        pipeline.share.took(req.apiKeyId);
        reportTransitions(ctx, [
          {
            ticketId: submission.ticketId,
            txid: done.txid,
            from: null,
            to: 'BROADCASTING',
            reason: null,
            submittedAt: now,
            requestId: req.requestId ?? null,
            at: now,
            first: true,
          },
        ]);
        return {
          ticketId: submission.ticketId,
          created: true,
          txid: done.txid,
          rawTx: done.raw,
          broadcast: broadcastSafely(ctx, submission.ticketId, done.txid, done.raw),
        };
      case 'duplicate':
        pipeline.funding.giveBack(funding);
        return answerAgain(ctx, verdict.ticketId);
      case 'conflict':
        pipeline.funding.giveBack(funding);
        if (verdict.code === 'DAILY_LIMIT_EXCEEDED') ctx.controls?.counted?.refused(verdict.code);
        throw new DomainError(verdict.code, verdict.detail);
      case 'funding-lost':
        ctx.log.warn(
          { funding: `${funding.txid}_${funding.vout}` },
          'a funding lease was lost; cosigning with another output',
        );
    }
  }
  throw new DomainError('FUNDING_EXHAUSTED', 'no funding output could be reserved for this transfer');
}

/** The same transaction again: its ticket, broadcast again while it is still broadcasting. */
async function answerAgain(ctx: ApiContext, ticketId: string): Promise<SubmitResult> {
  const ticket = await ticketById(ctx.db, ticketId);
  if (ticket === null) throw new Error(`ticket ${ticketId} vanished`);
  const settled = (outcome: BroadcastOutcome) => ({
    ticketId,
    created: false,
    txid: ticket.txid,
    rawTx: ticket.rawTx,
    broadcast: Promise.resolve(outcome),
  });
  switch (ticket.status) {
    case 'BROADCASTING':
      return {
        ...settled({ kind: 'unavailable', reason: '' }),
        broadcast: broadcastSafely(ctx, ticketId, ticket.txid, ticket.rawTx),
      };
    case 'FAILED':
      return settled({ kind: 'rejected', reason: ticket.errors ?? 'transfer failed', arcCode: 0 });
    default:
      return settled({ kind: 'accepted', status: { kind: 'mempool' } });
  }
}

function broadcastSafely(
  ctx: ApiContext,
  ticketId: string,
  txid: string,
  rawTx: Uint8Array,
): Promise<BroadcastOutcome> {
  return ctx.broadcasts.enqueue({ ticketId, txid, rawTx }).catch((err: unknown) => {
    ctx.log.error({ err, ticketId }, 'broadcast after submission failed; the tracker will retry');
    return { kind: 'unavailable', reason: err instanceof Error ? err.message : String(err) };
  });
}
