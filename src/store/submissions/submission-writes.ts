// The write that accepts transfers: a batch of cosigned submissions in one database transaction,
// with set-based statements (docs/adr/0002-batched-write-path.md). Per submission: the ticket,
// the reservation of its token inputs and of its leased funding output, its first callback
// event, its change-feed record and new token outputs. Conflicts are settled per submission
// without failing the batch: a submission whose inputs another transaction took meanwhile, or
// whose funding lease was lost, is taken back out inside the transaction and gets its verdict.
// The caller settles conflicts inside the batch before (no two submissions here share an input
// or a submitted txid).
import { dailyLimitedSenders, dailyLimitRefusals } from '../../domain/issuer-controls.js';
import { ticketJson } from '../../domain/ticket.js';
import type { Queryable } from '../db/db.js';
import { insertScoredFeedRecords } from '../feed/feed-records.js';
import { ticketIdsBySubmittedTxid } from '../tickets/ticket-queries.js';
import { appendTicketEvents } from '../tickets/ticket-writes.js';
import { liveReservation } from '../wallets/wallet-queries.js';
import { type DailyLimit, holdDailySums, sentSince } from './daily-limit-hold.js';
import type { Outpoint, Submission } from './submission.js';
import { claimSubmissions } from './submission-claims.js';

export type { NewTokenOutput } from '../feed/feed-records.js';
export type { Outpoint, Submission } from './submission.js';

/**
 * Why a submission was taken back out at its write: an input held, spent or seized by another
 * transaction meanwhile, or its senders' daily limit passed by what committed meanwhile.
 */
export const CONFLICT_CODES = [
  'INPUT_LOCKED',
  'INPUT_SPENT',
  'OUTPUT_SEIZED',
  'DAILY_LIMIT_EXCEEDED',
] as const;
export type ConflictCode = (typeof CONFLICT_CODES)[number];

/** What became of one submission of a batch. */
export type SubmissionVerdict =
  | { readonly kind: 'created' }
  /** The same transaction was submitted before: its ticket. */
  | { readonly kind: 'duplicate'; readonly ticketId: string }
  /** An input was taken by another transaction meanwhile, or the daily limit passed. */
  | { readonly kind: 'conflict'; readonly code: ConflictCode; readonly detail: string }
  /** Its funding output's lease was lost (expired and leased elsewhere): cosign again with another. */
  | { readonly kind: 'funding-lost' };

const key = (o: Outpoint) => `${o.txid}_${o.vout}`;

export async function writeSubmissions(
  tx: Queryable,
  batch: readonly Submission[],
  /** Until when a funding output given back to its lease owner (a loser's) stays leased. */
  leaseUntil: Date,
  /** The per-address daily limit, when one is set: judged here under the senders' locks. */
  dailyLimit: DailyLimit | null = null,
): Promise<SubmissionVerdict[]> {
  const verdicts = new Map<string, SubmissionVerdict>();
  if (batch.length === 0) return [];

  // 0. The limited senders' locks first, before any row lock, so that batches meet in one order.
  const limited = dailyLimit === null ? [] : dailyLimitedSenders(batch, dailyLimit.operator);
  await holdDailySums(tx, limited);

  // 1-3. Tickets, token inputs and funding outputs claimed in one statement (submission-claims.ts).
  const { inserted, reservedCount, funded } = await claimSubmissions(tx, batch);
  const skipped = batch.filter((s) => !inserted.has(s.ticketId));
  if (skipped.length > 0) {
    const bySubmitted = await ticketIdsBySubmittedTxid(
      tx,
      skipped.map((s) => s.submittedTxid),
    );
    for (const s of skipped) {
      const earlier = bySubmitted.get(s.submittedTxid);
      verdicts.set(
        s.ticketId,
        earlier === undefined
          ? {
              kind: 'conflict',
              code: 'INPUT_LOCKED',
              detail: 'an input of this transfer was locked in a previous transaction attempt',
            }
          : { kind: 'duplicate', ticketId: earlier },
      );
    }
  }
  const live = batch.filter((s) => inserted.has(s.ticketId));
  if (live.length === 0) return batch.map((s) => verdicts.get(s.ticketId)!);

  // 4. Losers come back out: their reservations undone, their tickets deleted.
  const inputsLost = live.filter((s) => (reservedCount.get(s.ticketId) ?? 0) !== s.inputs.length);
  const lostInputs = new Set(inputsLost);
  const fundingLost = live.filter((s) => !funded.has(s.ticketId) && !lostInputs.has(s));
  const limitLost =
    dailyLimit === null || limited.length === 0
      ? new Map<Submission, string>()
      : await overDailyLimit(
          tx,
          live.filter((s) => funded.has(s.ticketId) && !lostInputs.has(s)),
          limited,
          dailyLimit,
        );
  const losers = new Set([...inputsLost, ...fundingLost, ...limitLost.keys()]);
  if (losers.size > 0) {
    const ids = [...losers].map((s) => s.ticketId);
    // Found by their spender (reserved_by has no index, migration 039); released before the
    // tickets go (no key from the outputs to the tickets).
    await tx.query(
      'UPDATE token_outputs SET reserved_by = NULL, spent_by = NULL WHERE spent_by = ANY($2::text[]) AND reserved_by = ANY($1::uuid[])',
      [ids, [...losers].map((s) => s.txid)],
    );
    // Each loser's funding output goes back to its own lease owner (batches from the writer
    // hold several api processes' submissions).
    const lost = [...losers];
    await tx.query(
      `UPDATE funding_outputs f SET state = 'available', reserved_by = NULL, lease_owner = u.owner, lease_until = $3
         FROM unnest($1::uuid[], $2::text[]) AS u(ticket, owner)
        WHERE f.reserved_by = u.ticket AND f.state = 'reserved'`,
      [lost.map((s) => s.ticketId), lost.map((s) => s.leaseOwner), leaseUntil],
    );
    await tx.query('DELETE FROM tickets WHERE id = ANY($1::uuid[])', [ids]);
    for (const s of fundingLost) verdicts.set(s.ticketId, { kind: 'funding-lost' });
    for (const [id, verdict] of await inputConflicts(tx, inputsLost)) verdicts.set(id, verdict);
    for (const [s, detail] of limitLost)
      verdicts.set(s.ticketId, { kind: 'conflict', code: 'DAILY_LIMIT_EXCEEDED', detail });
  }
  const winners = live.filter((s) => !losers.has(s));
  for (const s of winners) verdicts.set(s.ticketId, { kind: 'created' });
  if (winners.length === 0) return batch.map((s) => verdicts.get(s.ticketId)!);

  // 5. First callback events, then the marker (the last lock taken), the scores and the rows.
  await appendTicketEvents(
    tx,
    winners
      .filter((s) => s.callbackUrl !== null)
      .map((s) => ({ ticketId: s.ticketId, payload: ticketJson(ticketOf(s)) })),
    winners.at(-1)!.now,
  );
  await insertScoredFeedRecords(
    tx,
    winners.map((s) => ({
      txid: s.txid,
      rawTx: s.rawTx,
      senders: s.senders,
      receivers: s.receivers,
      outputs: s.outputs,
      state: 'unconfirmed' as const,
      now: s.now,
    })),
  );
  return batch.map((s) => verdicts.get(s.ticketId)!);
}

/** The batch's submissions (in order) that would pass their senders' daily limit, with why. */
async function overDailyLimit(
  tx: Queryable,
  candidates: readonly Submission[],
  senders: readonly string[],
  limit: DailyLimit,
): Promise<Map<Submission, string>> {
  const before = await sentSince(tx, senders, limit.since);
  // What each spends, read back from the outputs it claimed in this transaction.
  const spent = await tx.query<{ spent_by: string; owner: string; amount: string }>(
    'SELECT spent_by, owner, amount::text FROM token_outputs WHERE spent_by = ANY($1::text[])',
    [candidates.map((s) => s.txid)],
  );
  const inputsOf = new Map<string, { owner: string; amount: bigint }[]>();
  for (const r of spent)
    inputsOf.set(r.spent_by, [
      ...(inputsOf.get(r.spent_by) ?? []),
      { owner: r.owner, amount: BigInt(r.amount) },
    ]);
  const refusals = dailyLimitRefusals(
    candidates.map((s) => ({ senders: s.senders, outputs: s.outputs, inputs: inputsOf.get(s.txid) ?? [] })),
    limit.perAddressPerDay,
    before,
    limit.operator,
  );
  const over = new Map<Submission, string>();
  for (const [i, refusal] of refusals.entries())
    if (refusal !== null) over.set(candidates[i]!, refusal.detail);
  return over;
}

const ticketOf = (s: Submission) => ({
  id: s.ticketId,
  txid: s.txid,
  rawTx: s.rawTx,
  status: 'BROADCASTING' as const,
  callbackUrl: s.callbackUrl,
  errors: null,
  createdAt: s.now,
  updatedAt: s.now,
});

/**
 * Why each loser lost: an input a ticket still BROADCASTING holds (locked), one spent or gone
 * (spent: its ticket left BROADCASTING for the network, or no ticket of this service spends it),
 * or one a seizure took after the submission was screened.
 */
async function inputConflicts(
  tx: Queryable,
  lost: readonly Submission[],
): Promise<Map<string, SubmissionVerdict>> {
  const result = new Map<string, SubmissionVerdict>();
  if (lost.length === 0) return result;
  const outpoints = lost.flatMap((s) => s.inputs);
  const rows = await tx.query<{
    txid: string;
    vout: number;
    spent_by: string | null;
    reserved_by: string | null;
    seized: boolean;
  }>(
    `SELECT o.txid, o.vout, o.spent_by, ${liveReservation('o')} AS reserved_by, o.seized
       FROM unnest($1::text[], $2::int[]) AS u(txid, vout) JOIN token_outputs o ON o.txid = u.txid AND o.vout = u.vout`,
    [outpoints.map((o) => o.txid), outpoints.map((o) => o.vout)],
  );
  const state = new Map(
    rows.map((r) => [
      key(r),
      r.reserved_by !== null ? 'reserved' : r.spent_by !== null ? 'spent' : r.seized ? 'seized' : 'free',
    ]),
  );
  for (const s of lost) {
    let verdict: SubmissionVerdict = {
      kind: 'conflict',
      code: 'INPUT_LOCKED',
      detail: 'an input of this transfer was locked in a previous transaction attempt',
    };
    for (const input of s.inputs) {
      const outpoint = key(input);
      const now = state.get(outpoint);
      if (now === 'reserved') {
        verdict = {
          kind: 'conflict',
          code: 'INPUT_LOCKED',
          detail: `outpoint ${outpoint} was locked in a previous transaction attempt`,
        };
        break;
      }
      if (now === 'seized') {
        verdict = {
          kind: 'conflict',
          code: 'OUTPUT_SEIZED',
          detail: `${outpoint} was seized: the service never cosigns it again`,
        };
        break;
      }
      if (now === 'spent' || now === undefined) {
        verdict = { kind: 'conflict', code: 'INPUT_SPENT', detail: `outpoint ${outpoint} already spent` };
        break;
      }
    }
    result.set(s.ticketId, verdict);
  }
  return result;
}
