// The approval policy (migration 037): one row saying which actions need the approvals of how
// many distinct keys (domain/approval-policy.ts parses it). A change is recorded in
// control_events with who, why and both versions, in the same transaction as the change.
import { parsePolicy } from '../../domain/approval-policy.js';
import type { Queryable } from '../db/db.js';
import { recordProposalEvent } from './proposal-store.js';

export interface StoredPolicy {
  /** As stored: domain/approval-policy.ts parses it. */
  readonly rules: unknown;
  readonly changedBy: string;
  readonly changedAt: Date;
  /**
   * The row's version (its xmin: the transaction that wrote it, changed by every write): a
   * change made against this version commits only while it is still the one in force.
   */
  readonly version: string;
}

export async function approvalPolicy(q: Queryable): Promise<StoredPolicy> {
  const [row] = await q.query<{ rules: unknown; changed_by: string; changed_at: Date; version: string }>(
    'SELECT rules, changed_by, changed_at, xmin::text AS version FROM approval_policy',
  );
  if (row === undefined) throw new Error('approval_policy has no row (migration 037)');
  const rules = typeof row.rules === 'string' ? JSON.parse(row.rules) : row.rules;
  return { rules, changedBy: row.changed_by, changedAt: row.changed_at, version: row.version };
}

/**
 * Replaces the policy, recorded with who, why and both versions; in the caller's transaction.
 * With `seen` (a version read before), only while that version is still the one in force: the
 * row is locked first, so a change committed meanwhile is seen. Answers whether it replaced it.
 */
export async function setApprovalPolicy(
  tx: Queryable,
  s: { readonly rules: unknown; readonly reason: string; readonly actor: string; readonly at: Date },
  seen?: string,
): Promise<boolean> {
  await tx.query('SELECT 1 FROM approval_policy FOR UPDATE');
  const before = await approvalPolicy(tx);
  if (seen !== undefined && before.version !== seen) return false;
  await tx.query('UPDATE approval_policy SET rules = $1::jsonb, changed_by = $2, changed_at = $3', [
    JSON.stringify(s.rules),
    s.actor,
    s.at,
  ]);
  // A stricter count applies to the proposals still open too: an issuer that asks more keys of
  // a mint means the mints already waiting. (A count made lower leaves them as they were made.)
  for (const rule of parsePolicy(s.rules).rules)
    await tx.query(
      `UPDATE proposals SET required = $2
        WHERE state = 'open' AND action = $1 AND required < $2
          AND ($3::numeric IS NULL OR (body->>'amount')::numeric > $3::numeric)`,
      [rule.action, rule.approvals, rule.above?.toString() ?? null],
    );
  await recordProposalEvent(tx, {
    action: 'policy-set',
    subject: '',
    reason: s.reason,
    actor: s.actor,
    at: s.at,
    detail: { before: before.rules, after: s.rules },
  });
  return true;
}
