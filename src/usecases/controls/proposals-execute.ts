// An approved proposal executed exactly once (issue 32). Two guards, so that neither two
// approvals racing on two instances nor a process killed mid-execution runs it twice:
// - the state: open -> approved happens once, under the proposal's row lock (castVote), and
//   approved -> executed | failed happens once (finishExecution updates only from `approved`);
// - the execution itself is idempotent. Actions that only write the database (raise-allowance,
//   set-policy, create-key) run in the same transaction as the finish, under the row lock. The
//   others call the existing use case in a way a repeat cannot double: a mint keeps the
//   transaction it builds under the proposal's id (idempotency_prepared, migration 016) before
//   submitting it, so a repeat submits that same transaction (the same ticket); a seizure is
//   keyed by its order's reference; unpause, unfreeze and unblacklist change nothing the second
//   time. A lease (claimExecution) keeps two live executors from running it side by side; an
//   approved proposal left behind by a crash is completed by POST /v2/admin/proposals/{id}/execute
//   once the lease has run out.
import {
  type ApprovableAction,
  PolicyError,
  parsePolicy,
  raisesAllowance,
} from '../../domain/approval-policy.js';
import { DomainError, type DomainErrorCode } from '../../domain/domain-error.js';
import { ApiKeyInputError, type ApiKeyScope, createApiKey } from '../../store/access/api-keys-store.js';
import { requestHashOf } from '../../store/access/idempotency-store.js';
import { setAllowance } from '../../store/controls/allowance-store.js';
import { setApprovalPolicy } from '../../store/controls/approval-policy-store.js';
import {
  claimExecution,
  finishExecution,
  finishExecutionIn,
  lockApproved,
  releaseExecution,
  strandedApproved,
} from '../../store/controls/proposal-execution-store.js';
import { type Proposal, proposal } from '../../store/controls/proposal-store.js';
import type { Queryable } from '../../store/db/db.js';
import { unfreeze } from '../admin/change-freeze-list.js';
import type { ApiContext } from '../context.js';
import { mintTokens } from '../supply/mint-tokens.js';
import { preparedUnderKey } from '../supply/prepared-under-key.js';
import type { PreparedTransaction } from '../supply/send-from-held-address.js';
import { changePause, unblacklist } from './change-controls.js';
import { seizeAndReissue } from './seize-and-reissue.js';

/** How long one executor holds an approved proposal before another may complete it (default of proposalExecutionLeaseMs). */
export const EXECUTION_LEASE_MS = 120_000;

/** The Idempotency-Key "caller" an approved mint keeps its transaction under (api_key_id). */
export const PROPOSAL_PREPARED_CALLER = 'proposal';

export interface ExecutorDeps {
  readonly ctx: ApiContext;
  readonly mintKey: Uint8Array;
  /** Seals a created key's webhook secret. */
  readonly masterKey: Uint8Array;
  /** Drops the verifier's remembered keys (a created key works at once). */
  readonly forgetApiKeys?: () => void;
  /** The execution lease, ms (setting proposalExecutionLeaseMs; EXECUTION_LEASE_MS when absent). */
  readonly leaseMs?: number;
}

export type Execution =
  | {
      readonly kind: 'executed';
      readonly proposal: Proposal;
      /** What the execution answered, with anything shown once (a created key) that the record keeps not. */
      readonly answer: Readonly<Record<string, unknown>>;
    }
  | { readonly kind: 'failed'; readonly proposal: Proposal }
  /** Not approved (open, finished, or unknown) or another executor's lease is running. */
  | { readonly kind: 'not-run'; readonly proposal: Proposal | null };

/** Failures worth a later retry: the proposal stays approved (the error is thrown). */
const TRANSIENT: ReadonlySet<DomainErrorCode> = new Set([
  'LEDGER_UNAVAILABLE',
  'FUNDING_EXHAUSTED',
  'INPUT_LOCKED',
  'FUNDING_SHARE_EXCEEDED',
  'TRANSFERS_PAUSED',
  'SCREENING_UNAVAILABLE',
]);

/** A refusal for good that is no DomainError (a seizure order refused). */
class Refused extends Error {}

/** Failures for good: the proposal is marked failed with the reason. */
function permanent(err: unknown): string | null {
  if (err instanceof Refused) return err.message;
  if (err instanceof DomainError) return TRANSIENT.has(err.code) ? null : `${err.code}: ${err.message}`;
  if (err instanceof ApiKeyInputError || err instanceof PolicyError) return err.message;
  return null;
}

/** Where an approved mint keeps the transaction it builds: under the proposal's id. */
export function preparedFor(ctx: ApiContext, id: string): PreparedTransaction {
  const scope = { apiKeyId: PROPOSAL_PREPARED_CALLER, key: id, requestHash: requestHashOf(['proposal', id]) };
  return preparedUnderKey(ctx.db, scope, ctx.now, (kept) => (kept === 'conflict' ? null : kept));
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Actions that only write the database: run in the finish's transaction. */
const IN_TRANSACTION: ReadonlySet<ApprovableAction> = new Set([
  'raise-allowance',
  'set-policy',
  'create-key',
]);

async function runInTransaction(
  deps: ExecutorDeps,
  tx: Queryable,
  p: Proposal,
  at: Date,
): Promise<{ record: Record<string, unknown>; answer: Record<string, unknown> }> {
  const b = p.body;
  switch (p.action) {
    case 'raise-allowance': {
      const next = b.amount === null ? null : BigInt(text(b.amount));
      const done = await setAllowance(tx, {
        keyId: text(b.keyId),
        remaining: next,
        reason: text(b.reason),
        actor: p.proposedBy,
        at,
      });
      const record = {
        keyId: text(b.keyId),
        before: done.before?.toString() ?? null,
        after: done.after?.toString() ?? null,
        raised: raisesAllowance(done.before, next),
      };
      return { record, answer: record };
    }
    case 'set-policy': {
      parsePolicy(b.rules);
      await setApprovalPolicy(tx, { rules: b.rules, reason: text(b.reason), actor: p.proposedBy, at });
      return { record: { rules: b.rules }, answer: { rules: b.rules } };
    }
    case 'create-key': {
      const created = await createApiKey(
        tx,
        deps.masterKey,
        {
          name: text(b.name),
          scopes: (b.scopes as ApiKeyScope[]) ?? ['read', 'submit'],
          rateLimit: (b.rateLimit as number | null | undefined) ?? null,
        },
        at,
      );
      const record = { id: created.id, name: created.name, scopes: [...created.scopes] };
      return {
        record,
        answer: {
          ...record,
          key: created.key,
          webhookSecret: created.webhookSecret,
          rateLimit: created.rateLimit ?? null,
          createdAt: created.createdAt.toISOString(),
        },
      };
    }
    default:
      throw new Error(`${p.action} does not run in a transaction`);
  }
}

async function runOutside(deps: ExecutorDeps, p: Proposal, at: Date): Promise<Record<string, unknown>> {
  const { ctx } = deps;
  const b = p.body;
  const actor = p.proposedBy;
  switch (p.action) {
    case 'mint': {
      const minted = await mintTokens(
        ctx,
        deps.mintKey,
        { to: text(b.to), amount: BigInt(text(b.amount)), minter: actor },
        preparedFor(ctx, p.id),
      );
      return { ticketId: minted.ticketId, txid: minted.txid };
    }
    case 'seize': {
      const done = await seizeAndReissue(ctx, deps.mintKey, {
        reference: text(b.reference),
        reason: text(b.reason),
        outpoints: (b.outpoints as string[]) ?? [],
        reissueTo: text(b.reissueTo),
        actor,
      });
      if (done.kind === 'refused') throw new Refused(`SEIZURE_REFUSED: ${done.why}`);
      return {
        seizureId: done.seizure.id,
        reference: done.seizure.reference,
        reissueTxid: done.seizure.reissueTxid,
      };
    }
    case 'unpause': {
      const done = await changePause(ctx, { paused: false, reason: text(b.reason), actor, at });
      return { paused: done.state.paused, changed: done.changed };
    }
    case 'unfreeze': {
      const done = await unfreeze(ctx, { address: text(b.address), reason: text(b.reason), actor, at });
      return { address: text(b.address), changed: done !== null };
    }
    case 'unblacklist': {
      const done = await unblacklist(ctx, { address: text(b.address), reason: text(b.reason), actor, at });
      return { address: text(b.address), changed: done !== null };
    }
    default:
      throw new Error(`${p.action} runs in a transaction`);
  }
}

/**
 * Executes an approved proposal once (see above), `actor` being the key whose approval (or
 * whose completion) runs it. A transient failure (the ledger down, a pause) is thrown and leaves
 * the proposal approved, to be completed later; a refusal marks it failed.
 */
export async function executeProposal(deps: ExecutorDeps, id: string, actor: string): Promise<Execution> {
  const { ctx } = deps;
  const current = await proposal(ctx.db, id);
  if (current === null || current.state !== 'approved') return { kind: 'not-run', proposal: current };
  const failed = async (why: string): Promise<Execution> => {
    await finishExecution(ctx.db, { id, outcome: { ok: false, error: why }, actor, at: ctx.now() });
    ctx.controls?.counted?.change('proposal-fail');
    return { kind: 'failed', proposal: (await proposal(ctx.db, id))! };
  };

  if (IN_TRANSACTION.has(current.action)) {
    let answer: Record<string, unknown> | null = null;
    try {
      answer = await ctx.db.transaction(async (tx) => {
        if (!(await lockApproved(tx, id))) return null;
        const at = ctx.now();
        const done = await runInTransaction(deps, tx, current, at);
        await finishExecutionIn(tx, { id, outcome: { ok: true, result: done.record }, actor, at });
        return done.answer;
      });
    } catch (err) {
      const why = permanent(err);
      if (why === null) throw err;
      return failed(why);
    }
    if (answer === null) return { kind: 'not-run', proposal: await proposal(ctx.db, id) };
    if (current.action === 'create-key') deps.forgetApiKeys?.();
    ctx.controls?.counted?.change('proposal-execute');
    return { kind: 'executed', proposal: (await proposal(ctx.db, id))!, answer };
  }

  const at = ctx.now();
  if (!(await claimExecution(ctx.db, id, at, new Date(at.getTime() + (deps.leaseMs ?? EXECUTION_LEASE_MS)))))
    return { kind: 'not-run', proposal: await proposal(ctx.db, id) };
  let result: Record<string, unknown>;
  try {
    result = await runOutside(deps, current, at);
  } catch (err) {
    const why = permanent(err);
    if (why === null) {
      await releaseExecution(ctx.db, id);
      throw err;
    }
    return failed(why);
  }
  // false: another executor (after this one's lease ran out) finished the same execution first.
  if (await finishExecution(ctx.db, { id, outcome: { ok: true, result }, actor, at: ctx.now() }))
    ctx.controls?.counted?.change('proposal-execute');
  return { kind: 'executed', proposal: (await proposal(ctx.db, id))!, answer: result };
}

/** How long after its approval a proposal no one executes counts as stranded. */
export const STRANDED_AFTER_MS = 30_000;

/**
 * Completes the approved proposals a killed process left unexecuted (each once, as above),
 * except key creations: a created key is shown once, to whoever completes it, so a person does
 * (POST /v2/admin/proposals/{id}/execute). Answers how many were completed.
 */
export async function finishStrandedProposals(deps: ExecutorDeps): Promise<number> {
  const { ctx } = deps;
  let done = 0;
  for (const p of await strandedApproved(ctx.db, ctx.now(), STRANDED_AFTER_MS)) {
    if (p.action === 'create-key') continue;
    try {
      const ran = await executeProposal(deps, p.id, 'recovery');
      if (ran.kind !== 'not-run') {
        done++;
        ctx.log.warn(
          { proposal: p.id, action: p.action, state: ran.proposal.state },
          'a stranded approved proposal was completed',
        );
      }
    } catch (err) {
      ctx.log.warn({ err, proposal: p.id }, 'a stranded approved proposal could not be completed yet');
    }
  }
  return done;
}
