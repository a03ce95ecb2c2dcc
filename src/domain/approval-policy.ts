// No single key (issue 32; docs/operations.md, "Set up approvals"): the approval policy says
// which of the issuer's actions need the approval of K distinct admin keys. Such an action
// becomes a proposal; it runs once when the K-th distinct key approves, and any one rejection
// closes it. Pure: the store keeps the policy as JSON (policyJson), the use cases ask it.

/** The actions a policy can hold back for approvals. */
export const APPROVABLE_ACTIONS = [
  'mint',
  'seize',
  'unpause',
  'unfreeze',
  'unblacklist',
  'create-key',
  'raise-allowance',
  'set-policy',
] as const;
export type ApprovableAction = (typeof APPROVABLE_ACTIONS)[number];

/**
 * The scope a key needs to propose, approve or reject an action (the scope its route needs;
 * `admin` holds them all).
 */
export const APPROVER_SCOPE: Readonly<Record<ApprovableAction, string>> = {
  mint: 'mint',
  seize: 'seize',
  unpause: 'pause',
  unfreeze: 'freeze',
  unblacklist: 'freeze',
  'create-key': 'keys',
  'raise-allowance': 'policy',
  'set-policy': 'policy',
};

/** Most approvals a rule may ask (a policy no set of keys can meet would lock the issuer out). */
export const MAX_APPROVALS = 10;

export interface ApprovalRule {
  readonly action: ApprovableAction;
  /** K: distinct keys whose approval runs the action (2 or more, or 1 with proposerApproves false). */
  readonly approvals: number;
  /** mint only: the rule holds back mints strictly above this many atomic units; absent: every mint. */
  readonly above?: bigint;
  /** Whether the proposing key counts as the first approval (default true). */
  readonly proposerApproves: boolean;
}

export interface ApprovalPolicy {
  readonly rules: readonly ApprovalRule[];
}

export const NO_APPROVALS: ApprovalPolicy = { rules: [] };

export class PolicyError extends Error {}

/** What a proposal needs: K approvals, and whether the proposer's counts. */
export interface Needed {
  readonly required: number;
  readonly proposerApproves: boolean;
}

/**
 * What `action` needs under `policy`: null when it runs at once (no rule, a mint at or below
 * the rule's amount, or K = 1 counting the proposer).
 */
export function approvalsFor(
  policy: ApprovalPolicy,
  action: ApprovableAction,
  amount?: bigint,
): Needed | null {
  const rule = policy.rules.find((r) => r.action === action);
  if (rule === undefined) return null;
  if (rule.above !== undefined && (amount === undefined || amount <= rule.above)) return null;
  if (rule.approvals <= 1 && rule.proposerApproves) return null;
  return { required: rule.approvals, proposerApproves: rule.proposerApproves };
}

export type Tally = 'open' | 'approved' | 'rejected';

/** One vote per key (the store's primary key); one rejection closes a proposal. */
export function tally(votes: readonly { readonly vote: 'approve' | 'reject' }[], required: number): Tally {
  if (votes.some((v) => v.vote === 'reject')) return 'rejected';
  return votes.filter((v) => v.vote === 'approve').length >= required ? 'approved' : 'open';
}

/** Whether a change of a key's mint allowance raises it (null: no cap). */
export function raisesAllowance(current: bigint | null, next: bigint | null): boolean {
  if (next === null) return current !== null;
  if (current === null) return false; // unlimited to a cap lowers it
  return next > current;
}

/** The policy as stored and answered: amounts as decimal text. */
export function policyJson(policy: ApprovalPolicy): PolicyRuleJson[] {
  return policy.rules.map((r) => ({
    action: r.action,
    approvals: r.approvals,
    ...(r.above !== undefined && { above: r.above.toString() }),
    proposerApproves: r.proposerApproves,
  }));
}

export interface PolicyRuleJson {
  action: ApprovableAction;
  approvals: number;
  above?: string;
  proposerApproves?: boolean;
}

/** Reads a policy (as stored or sent); throws PolicyError saying what is wrong. */
export function parsePolicy(rules: unknown): ApprovalPolicy {
  if (!Array.isArray(rules)) throw new PolicyError('the policy is a list of rules');
  const seen = new Set<string>();
  const parsed = rules.map((raw, i): ApprovalRule => {
    if (typeof raw !== 'object' || raw === null) throw new PolicyError(`rule ${i}: not an object`);
    const r = raw as Record<string, unknown>;
    const action = r.action;
    if (typeof action !== 'string' || !(APPROVABLE_ACTIONS as readonly string[]).includes(action))
      throw new PolicyError(`rule ${i}: action must be one of ${APPROVABLE_ACTIONS.join(', ')}`);
    if (seen.has(action)) throw new PolicyError(`rule ${i}: a second rule for ${action}`);
    seen.add(action);
    const approvals = r.approvals;
    if (
      typeof approvals !== 'number' ||
      !Number.isInteger(approvals) ||
      approvals < 1 ||
      approvals > MAX_APPROVALS
    )
      throw new PolicyError(`rule ${i}: approvals must be an integer from 1 to ${MAX_APPROVALS}`);
    const proposerApproves = r.proposerApproves ?? true;
    if (typeof proposerApproves !== 'boolean')
      throw new PolicyError(`rule ${i}: proposerApproves is a boolean`);
    let above: bigint | undefined;
    if (r.above !== undefined) {
      if (action !== 'mint') throw new PolicyError(`rule ${i}: only a mint rule has an amount (above)`);
      if (typeof r.above !== 'string' || !/^(0|[1-9][0-9]{0,30})$/.test(r.above))
        throw new PolicyError(`rule ${i}: above is a whole number of atomic units, as text`);
      above = BigInt(r.above);
    }
    return {
      action: action as ApprovableAction,
      approvals,
      proposerApproves,
      ...(above !== undefined && { above }),
    };
  });
  return { rules: parsed };
}
