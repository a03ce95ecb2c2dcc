// No single key (issue 32; docs/operations.md, "Set up approvals"): an action the approval
// policy holds back becomes a proposal (gate); keys with the action's scope approve or reject
// it (vote); it expires after the configured time; and the K-th distinct approval executes it
// once (proposals-execute.ts). Every step is in control_events with the key that took it, and
// counted in /metrics (tokenproxy_control_changes_total{action="proposal-..."}).
import {
  type ApprovableAction,
  type ApprovalPolicy,
  approvalsFor,
  parsePolicy,
  tally,
} from '../../domain/approval-policy.js';
import { approvalPolicy, setApprovalPolicy } from '../../store/controls/approval-policy-store.js';
import {
  castVote,
  createProposal,
  expireProposals,
  type NewProposal,
  type Proposal,
  proposal,
  type VoteOutcome,
} from '../../store/controls/proposal-store.js';
import type { ServiceContext } from '../context.js';

export type ProposalDeps = Pick<ServiceContext, 'db' | 'now' | 'newId' | 'controls'> & {
  /** How long a proposal stays open for votes, ms (setting proposalTtlMs). */
  readonly proposalTtlMs: number;
};

/**
 * Replaces the approval policy. With `seen` (the version the caller judged the change against,
 * e.g. whether set-policy itself needs approvals), only while that version is still in force:
 * null when another change committed meanwhile, for the caller to judge again.
 */
export async function setPolicy(
  ctx: Pick<ServiceContext, 'db' | 'now' | 'controls'>,
  s: { readonly rules: unknown; readonly reason: string; readonly actor: string },
  seen?: string,
): Promise<Date | null> {
  const at = ctx.now();
  if (!(await ctx.db.transaction((tx) => setApprovalPolicy(tx, { ...s, at }, seen)))) return null;
  ctx.controls?.counted?.change('policy-set');
  return at;
}

/** The policy in force. */
export async function currentPolicy(ctx: Pick<ServiceContext, 'db'>): Promise<ApprovalPolicy> {
  return parsePolicy((await approvalPolicy(ctx.db)).rules);
}

export interface GatedAction {
  readonly action: ApprovableAction;
  /** The action's validated request, as its execution reads it back. */
  readonly body: Readonly<Record<string, unknown>>;
  /** One line an approver reads, e.g. "mint 500 to 1Boat…". */
  readonly summary: string;
  /** mint only: atomic units (the policy's `above`). */
  readonly amount?: bigint;
  /** The admin key asking. */
  readonly actor: string;
  /** The request's Idempotency-Key: the same request again answers the same proposal. */
  readonly idempotency?: NewProposal['idempotency'];
}

/**
 * Holds the action back as a proposal when the policy says it needs approvals (answers it);
 * null when it runs at once.
 */
export async function gate(ctx: ProposalDeps, a: GatedAction): Promise<Proposal | null> {
  const needed = approvalsFor(await currentPolicy(ctx), a.action, a.amount);
  if (needed === null) return null;
  const at = ctx.now();
  const { proposal: made, created } = await createProposal(ctx.db, {
    id: ctx.newId(),
    action: a.action,
    body: a.body,
    summary: a.summary,
    required: needed.required,
    proposerApproves: needed.proposerApproves,
    proposedBy: a.actor,
    at,
    expiresAt: new Date(at.getTime() + ctx.proposalTtlMs),
    ...(a.idempotency !== undefined && { idempotency: a.idempotency }),
  });
  if (created) ctx.controls?.counted?.change('proposal');
  return made;
}

/** What a vote did: the store's outcome, as decided under the proposal's row lock. */
export type VoteResult = VoteOutcome;

/** A key's approval or rejection (the route checked the key's scope for the action). */
export async function vote(
  ctx: ProposalDeps,
  v: {
    readonly id: string;
    readonly keyId: string;
    readonly vote: 'approve' | 'reject';
    readonly reason: string;
    /** An API key's vote: refused once the key is revoked (castVote). */
    readonly keyMustBeLive?: boolean;
  },
): Promise<VoteResult> {
  // Expired proposals are marked (and counted) first; castVote still refuses one that expires
  // between the two.
  await expireDue(ctx);
  const done = await castVote(ctx.db, { ...v, at: ctx.now() }, (votes, required) => tally(votes, required));
  if (done.kind === 'voted')
    ctx.controls?.counted?.change(v.vote === 'approve' ? 'proposal-approve' : 'proposal-reject');
  return done;
}

/** Marks the open proposals past their expiry expired (each recorded and counted once). */
export async function expireDue(ctx: ProposalDeps): Promise<number> {
  const expired = await expireProposals(ctx.db, ctx.now());
  for (const _ of expired) ctx.controls?.counted?.change('proposal-expire');
  return expired.length;
}

/** One proposal, with an expiry due now applied first. */
export async function proposalNow(ctx: ProposalDeps, id: string): Promise<Proposal | null> {
  await expireDue(ctx);
  return proposal(ctx.db, id);
}
