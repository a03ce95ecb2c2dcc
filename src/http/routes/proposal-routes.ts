// No single key (issue 32; docs/operations.md, "Set up approvals"): proposals (list and show:
// `audit`; approve, reject and complete: the scope of the proposal's action), the approval
// policy (read: `audit`; change: `policy`, itself an action the policy can hold back) and
// per-key mint allowances (read: `audit`; set: `policy`, a raise held back as `raise-allowance`).
// A route whose action the policy holds back answers 202 with the proposal (heldBack). The CLI
// (`tokenproxy proposals | allowance | approvals`) and the console's Proposals panel use these.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { formatTokens, parseTokens, toJsonNumber } from '../../domain/amount.js';
import {
  APPROVER_SCOPE,
  type ApprovableAction,
  PolicyError,
  parsePolicy,
  policyJson,
  raisesAllowance,
} from '../../domain/approval-policy.js';
import { listApiKeys } from '../../store/access/api-keys-store.js';
import { allowanceOf, listAllowances } from '../../store/controls/allowance-store.js';
import { approvalPolicy, listProposals, type Proposal } from '../../store/controls/proposal-store.js';
import { setMintAllowance } from '../../usecases/controls/allowances.js';
import {
  expireDue,
  type GatedAction,
  gate,
  type ProposalDeps,
  proposalNow,
  setPolicy,
  vote,
} from '../../usecases/controls/proposals.js';
import { executeProposal, finishStrandedProposals } from '../../usecases/controls/proposals-execute.js';
import type { AppInstance } from '../app.js';
import { AppError } from '../app-error.js';
import { grants, type Scope } from '../plugins/auth.js';
import { authTokenQuery, problemResponses } from '../schemas/common.js';
import {
  AllowanceBody,
  AllowanceJson,
  AllowanceList,
  AllowanceSet,
  PolicyBody,
  PolicyJson,
  ProposalJson,
  ProposalList,
  ProposalParams,
  ProposalQuery,
  VoteBody,
  Voted,
} from '../schemas/proposal-schemas.js';
import type { RouteDeps } from './route-deps.js';

/** Proposals the list answers with (newest first). */
export const PROPOSALS_LISTED = 100;
/** How often the api expires due proposals and completes stranded approved ones, besides at its start. */
const RECOVERY_EVERY_MS = 60_000;
/** A proposal waits this long for its approvals when no setting says otherwise. */
export const DEFAULT_PROPOSAL_TTL_MS = 24 * 3_600_000;

const query = Type.Object(authTokenQuery);

export interface ProposalRouteDeps extends RouteDeps {
  readonly mintKey: Uint8Array;
  readonly forgetApiKeys: () => void;
}

/** The admin key's id (as control-routes.ts's actorOf; not imported: admin-routes.ts imports this file). */
function actorOf(principal: { readonly id: string } | null): string {
  return principal === null ? 'unknown' : principal.id;
}

function proposalDeps(deps: RouteDeps): ProposalDeps {
  return { ...deps.ctx, proposalTtlMs: deps.proposalTtlMs ?? DEFAULT_PROPOSAL_TTL_MS };
}

export function proposalJson(p: Proposal) {
  return {
    id: p.id,
    action: p.action,
    summary: p.summary,
    body: { ...p.body },
    required: p.required,
    approvals: p.votes.filter((v) => v.vote === 'approve').length,
    state: p.state,
    proposedBy: p.proposedBy,
    proposedAt: p.proposedAt.toISOString(),
    expiresAt: p.expiresAt.toISOString(),
    decidedAt: p.decidedAt?.toISOString() ?? null,
    finishedAt: p.finishedAt?.toISOString() ?? null,
    result: p.result === null ? null : { ...p.result },
    error: p.error,
    votes: p.votes.map((v) => ({ keyId: v.keyId, vote: v.vote, reason: v.reason, at: v.at.toISOString() })),
  };
}

/**
 * Holds the action back as a proposal when the approval policy says so: the proposal to answer
 * with 202; null when the route runs the action now. The route has checked the body and the
 * key's scope for the action.
 */
export async function heldBack(
  deps: RouteDeps,
  request: FastifyRequest,
  action: Omit<GatedAction, 'actor'>,
): Promise<ReturnType<typeof proposalJson> | null> {
  const actor = actorOf(request.principal);
  const made = await gate(proposalDeps(deps), { ...action, actor });
  if (made === null) return null;
  request.log.warn({ proposal: made.id, action: made.action, actor }, 'action held back for approvals');
  return proposalJson(made);
}

function mayVote(request: FastifyRequest, action: ApprovableAction): void {
  const scope = APPROVER_SCOPE[action] as Scope;
  if (!grants(request.principal?.scopes ?? [], scope))
    throw new AppError(
      'FORBIDDEN',
      `a ${action} proposal is approved or rejected by a key with the ${scope} scope`,
    );
}

function allowanceJson(a: { keyId: string; remaining: bigint; setBy: string; setAt: Date }) {
  return {
    keyId: a.keyId,
    remaining: { atomic: toJsonNumber(a.remaining), tokens: formatTokens(a.remaining) },
    setBy: a.setBy,
    setAt: a.setAt.toISOString(),
  };
}

export function proposalRoutes(deps: ProposalRouteDeps) {
  const { ctx } = deps;
  const pdeps = proposalDeps(deps);
  const executor = {
    ctx,
    mintKey: deps.mintKey,
    masterKey: deps.masterKey,
    forgetApiKeys: deps.forgetApiKeys,
    ...(deps.proposalExecutionLeaseMs !== undefined && { leaseMs: deps.proposalExecutionLeaseMs }),
  };

  const known = async (id: string): Promise<Proposal> => {
    const p = await proposalNow(pdeps, id);
    if (p === null) throw new AppError('NOT_FOUND', `no proposal ${id}`);
    return p;
  };

  /** Runs an approved proposal; a transient failure leaves it approved and is answered as text. */
  const run = async (request: FastifyRequest, id: string) => {
    const actor = actorOf(request.principal);
    try {
      const done = await executeProposal(executor, id, actor);
      if (done.kind === 'executed') {
        request.log.warn({ proposal: id, actor }, 'proposal executed');
        return { proposal: done.proposal, answer: { ...done.answer }, executionError: null };
      }
      if (done.kind === 'failed') {
        request.log.warn({ proposal: id, actor, error: done.proposal.error }, 'proposal failed');
        return { proposal: done.proposal, answer: null, executionError: null };
      }
      return { proposal: done.proposal ?? (await known(id)), answer: null, executionError: null };
    } catch (err) {
      request.log.warn({ proposal: id, actor, err }, 'approved proposal not executed yet');
      return {
        proposal: await known(id),
        answer: null,
        executionError: err instanceof Error ? err.message : String(err),
      };
    }
  };

  const voteRoute =
    (kind: 'approve' | 'reject') =>
    async (request: FastifyRequest<{ Params: { id: string }; Body: { reason?: string } }>) => {
      const { id } = request.params;
      const p = await known(id);
      mayVote(request, p.action);
      const keyId = actorOf(request.principal);
      const reason = request.body?.reason ?? (kind === 'approve' ? 'approved' : 'rejected');
      const voted = await vote(pdeps, { id, keyId, vote: kind, reason });
      if (voted.kind === 'no-proposal') throw new AppError('NOT_FOUND', `no proposal ${id}`);
      if (voted.kind === 'voted-already')
        throw new AppError(
          'ALREADY_VOTED',
          keyId === p.proposedBy && !p.votes.some((x) => x.keyId === keyId)
            ? `key ${keyId} proposed ${id}: its proposal needs the approvals of other keys`
            : `key ${keyId} has voted on proposal ${id} already`,
        );
      if (voted.kind === 'closed')
        throw new AppError('PROPOSAL_CLOSED', `proposal ${id} is ${voted.proposal.state}`);
      request.log.warn(
        { proposal: id, keyId, vote: kind, state: voted.decided },
        kind === 'approve' ? 'proposal approved' : 'proposal rejected',
      );
      if (voted.decided !== 'approved')
        return { ...proposalJson(voted.proposal), answer: null, executionError: null };
      const ran = await run(request, id);
      return { ...proposalJson(ran.proposal), answer: ran.answer, executionError: ran.executionError };
    };

  return (app: AppInstance) => {
    // Proposals that expired are marked, and approved ones a killed process left unexecuted are
    // completed, without waiting for someone to look (each once: proposals-execute.ts).
    let recovery: NodeJS.Timeout | undefined;
    const recover = () =>
      void (async () => {
        await expireDue(pdeps);
        await finishStrandedProposals(executor);
      })().catch((err: unknown) => ctx.log.error({ err }, 'the proposals recovery pass failed'));
    app.addHook('onReady', async () => {
      recover();
      recovery = setInterval(recover, RECOVERY_EVERY_MS);
      recovery.unref();
    });
    app.addHook('onClose', async () => clearInterval(recovery));

    app.get(
      '/v2/admin/proposals',
      {
        config: { scope: 'audit' },
        schema: {
          summary: 'Proposals: actions waiting for (or decided by) the approvals of distinct keys',
          tags: ['admin'],
          querystring: ProposalQuery,
          response: { 200: ProposalList },
        },
      },
      async (request) => {
        await expireDue(pdeps);
        return {
          proposals: (await listProposals(ctx.db, PROPOSALS_LISTED, request.query.state)).map(proposalJson),
        };
      },
    );

    app.get(
      '/v2/admin/proposals/:id',
      {
        config: { scope: 'audit' },
        schema: {
          summary: 'One proposal with its votes',
          tags: ['admin'],
          params: ProposalParams,
          querystring: query,
          response: { 200: ProposalJson, ...problemResponses(404) },
        },
      },
      async (request) => proposalJson(await known(request.params.id)),
    );

    for (const kind of ['approve', 'reject'] as const)
      app.post(
        `/v2/admin/proposals/:id/${kind}`,
        {
          config: { scope: 'audit' },
          schema: {
            summary:
              kind === 'approve'
                ? "Approve a proposal (a key with the action's scope, once); the K-th approval runs it"
                : "Reject a proposal (a key with the action's scope): one rejection closes it",
            tags: ['admin'],
            params: ProposalParams,
            body: VoteBody,
            querystring: query,
            response: { 200: Voted, ...problemResponses(403, 404, 409) },
          },
          // a bare POST (no body) votes without a reason of its own
          preValidation: async (request) => {
            request.body ??= {};
          },
        },
        voteRoute(kind),
      );

    app.post(
      '/v2/admin/proposals/:id/execute',
      {
        config: { scope: 'audit' },
        schema: {
          summary:
            'Complete an approved proposal whose execution was interrupted (a crash, the ledger down); it runs once',
          tags: ['admin'],
          params: ProposalParams,
          querystring: query,
          response: { 200: Voted, ...problemResponses(403, 404, 409) },
        },
      },
      async (request) => {
        const { id } = request.params;
        const p = await known(id);
        mayVote(request, p.action);
        if (p.state !== 'approved' && p.state !== 'executed' && p.state !== 'failed')
          throw new AppError('PROPOSAL_CLOSED', `proposal ${id} is ${p.state}: nothing to execute`);
        const ran = await run(request, id);
        if (ran.proposal.state === 'approved' && ran.executionError === null && ran.answer === null)
          throw new AppError('PROPOSAL_CLOSED', `proposal ${id} is being executed by another request`);
        return { ...proposalJson(ran.proposal), answer: ran.answer, executionError: ran.executionError };
      },
    );

    app.get(
      '/v2/admin/approvals/policy',
      {
        config: { scope: 'audit' },
        schema: {
          summary: 'The approval policy: which actions need the approval of how many distinct keys',
          tags: ['admin'],
          querystring: query,
          response: { 200: PolicyJson },
        },
      },
      async () => {
        const stored = await approvalPolicy(ctx.db);
        return {
          rules: policyJson(parsePolicy(stored.rules)),
          changedBy: stored.changedBy,
          changedAt: stored.changedAt.toISOString(),
        };
      },
    );

    app.put(
      '/v2/admin/approvals/policy',
      {
        config: { scope: 'policy' },
        schema: {
          summary: 'Replace the approval policy (held back as a set-policy proposal when the policy says so)',
          tags: ['admin'],
          body: PolicyBody,
          querystring: query,
          response: { 200: PolicyJson, 202: ProposalJson, ...problemResponses(400) },
        },
      },
      async (request, reply) => {
        let rules: ReturnType<typeof policyJson>;
        try {
          rules = policyJson(parsePolicy(request.body.rules));
        } catch (err) {
          if (err instanceof PolicyError) throw new AppError('INVALID_PARAMETER', err.message);
          throw err;
        }
        const { reason } = request.body;
        const held = await heldBack(deps, request, {
          action: 'set-policy',
          body: { rules, reason },
          summary: `approval policy: ${rules.map((r) => `${r.action} ${r.approvals}`).join(', ') || 'none'}`,
        });
        if (held !== null) return reply.code(202).send(held);
        const actor = actorOf(request.principal);
        const at = await setPolicy(ctx, { rules, reason, actor });
        request.log.warn({ actor, rules: rules.length }, 'approval policy changed');
        return { rules, changedBy: actor, changedAt: at.toISOString() };
      },
    );

    app.get(
      '/v2/admin/allowances',
      {
        config: { scope: 'audit' },
        schema: {
          summary: 'Mint allowances: what each capped key may still mint (a key not listed has no cap)',
          tags: ['admin'],
          querystring: query,
          response: { 200: AllowanceList },
        },
      },
      async () => ({ allowances: (await listAllowances(ctx.db)).map(allowanceJson) }),
    );

    app.get(
      '/v2/admin/allowances/:keyId',
      {
        config: { scope: 'audit' },
        schema: {
          summary: "One key's mint allowance (404: the key has none, it mints without a cap)",
          tags: ['admin'],
          params: Type.Object({ keyId: Type.String({ minLength: 1, maxLength: 64 }) }),
          querystring: query,
          response: { 200: AllowanceJson, ...problemResponses(404) },
        },
      },
      async (request) => {
        const a = await allowanceOf(ctx.db, request.params.keyId);
        if (a === null)
          throw new AppError('NOT_FOUND', `key ${request.params.keyId} has no allowance (no cap)`);
        return allowanceJson(a);
      },
    );

    app.put(
      '/v2/admin/allowances/:keyId',
      {
        config: { scope: 'policy' },
        schema: {
          summary:
            "Set a key's mint allowance (null: no cap); a raise is held back as a raise-allowance proposal when the policy says so",
          tags: ['admin'],
          params: Type.Object({ keyId: Type.String({ minLength: 1, maxLength: 64 }) }),
          body: AllowanceBody,
          querystring: query,
          response: { 200: AllowanceSet, 202: ProposalJson, ...problemResponses(400, 404) },
        },
      },
      async (request, reply) => {
        const { keyId } = request.params;
        if (!(await listApiKeys(ctx.db)).some((k) => k.id === keyId && k.revokedAt === null))
          throw new AppError('NOT_FOUND', `no live API key with id ${keyId}`);
        const next = request.body.amount === null ? null : parseTokens(request.body.amount);
        // No token has more atomic units than this (tokenSupply), and amounts go out as JSON numbers.
        if (next !== null && next > BigInt(Number.MAX_SAFE_INTEGER))
          throw new AppError('INVALID_PARAMETER', 'an allowance is at most 2^53-1 atomic units');
        const { reason } = request.body;
        const current = (await allowanceOf(ctx.db, keyId))?.remaining ?? null;
        const show = (v: bigint | null) => (v === null ? 'no cap' : formatTokens(v));
        if (raisesAllowance(current, next)) {
          const held = await heldBack(deps, request, {
            action: 'raise-allowance',
            body: { keyId, amount: next?.toString() ?? null, reason },
            summary: `raise the mint allowance of ${keyId}: ${show(current)} -> ${show(next)}`,
          });
          if (held !== null) return reply.code(202).send(held);
        }
        const actor = actorOf(request.principal);
        const done = await setMintAllowance(ctx, { keyId, remaining: next, reason, actor });
        request.log.warn({ keyId, actor, after: done.after?.toString() ?? null }, 'mint allowance set');
        return { keyId, before: done.before?.toString() ?? null, after: done.after?.toString() ?? null };
      },
    );
  };
}
