// The approval policy (migration 037): one row saying which actions need the approvals of how
// many distinct keys (domain/approval-policy.ts parses it). A change is recorded in
// control_events with who, why and both versions, in the same transaction as the change.
import type { Queryable } from '../db/db.js';
import { recordProposalEvent } from './proposal-store.js';

export interface StoredPolicy {
  /** As stored: domain/approval-policy.ts parses it. */
  readonly rules: unknown;
  readonly changedBy: string;
  readonly changedAt: Date;
}

export async function approvalPolicy(q: Queryable): Promise<StoredPolicy> {
  const [row] = await q.query<{ rules: unknown; changed_by: string; changed_at: Date }>(
    'SELECT rules, changed_by, changed_at FROM approval_policy',
  );
  if (row === undefined) throw new Error('approval_policy has no row (migration 037)');
  const rules = typeof row.rules === 'string' ? JSON.parse(row.rules) : row.rules;
  return { rules, changedBy: row.changed_by, changedAt: row.changed_at };
}

/** Replaces the policy, recorded with who, why and both versions; in the caller's transaction. */
export async function setApprovalPolicy(
  tx: Queryable,
  s: { readonly rules: unknown; readonly reason: string; readonly actor: string; readonly at: Date },
): Promise<void> {
  const before = await approvalPolicy(tx);
  await tx.query('UPDATE approval_policy SET rules = $1::jsonb, changed_by = $2, changed_at = $3', [
    JSON.stringify(s.rules),
    s.actor,
    s.at,
  ]);
  await recordProposalEvent(tx, {
    action: 'policy-set',
    subject: '',
    reason: s.reason,
    actor: s.actor,
    at: s.at,
    detail: { before: before.rules, after: s.rules },
  });
}
