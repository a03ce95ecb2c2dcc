// No single key (issue 32; docs/operations.md, "Set up approvals"): proposals (list and show:
// `audit`; approve, reject and complete: the scope of the proposal's action), and heldBack, which
// every route whose action the approval policy can hold back calls: such a route answers 202
// with the proposal. The policy's own routes are policy-routes.ts, the mint allowances'
// allowance-routes.ts. The CLI (`tokenproxy proposals`) and the console's Proposals panel use these.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { APPROVER_SCOPE, type ApprovableAction } from '../../domain/approval-policy.js';
import { listProposals, type Proposal, ProposalKeyConflict } from '../../store/controls/proposal-store.js';
import {
  expireDue,
  type GatedAction,
  gate,
  type ProposalDeps,
  proposalNow,
  vote,
} from '../../usecases/controls/proposals.js';
import { executeProposal, finishStrandedProposals } from '../../usecases/controls/proposals-execute.js';
import type { AppInstance } from '../app.js';
import { AppError } from '../app-error.js';
import { grants, type Scope } from '../plugins/auth.js';
import { authTokenQuery, problemResponses } from '../schemas/common.js';
import {
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
export function actorOf(principal: { readonly id: string } | null): string {
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
  let made: Awaited<ReturnType<typeof gate>>;
  try {
    // Under the request's Idempotency-Key (a route with idempotencyHooks): sent again, to any
    // instance, it answers the proposal the first one made.
    made = await gate(proposalDeps(deps), {
      ...action,
      actor,
      ...(request.idempotency !== undefined && { idempotency: request.idempotency }),
    });
  } catch (err) {
    if (err instanceof ProposalKeyConflict)
      throw new AppError(
        'IDEMPOTENCY_CONFLICT',
        `Idempotency-Key ${request.idempotency?.key} was already used with another request; use a new key for a new request`,
      );
    throw err;
  }
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
      const keyMustBeLive = request.principal !== null && request.principal.shared !== true;
      const voted = await vote(pdeps, { id, keyId, vote: kind, reason, keyMustBeLive });
      if (voted.kind === 'no-proposal') throw new AppError('NOT_FOUND', `no proposal ${id}`);
      if (voted.kind === 'key-revoked')
        throw new AppError('UNAUTHORIZED', `key ${keyId} was revoked before its vote was counted`);
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
  };
}
