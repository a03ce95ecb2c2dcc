// Executing an approved proposal (migration 037): the lease an executor takes on it
// (claimExecution), or the row lock for an execution that is one transaction with its finish
// (lockApproved); the finish, recorded once and only from `approved` (finishExecution); and the
// approved proposals a killed process left unexecuted (strandedApproved). The execution itself
// is idempotent per action (usecases/controls/proposals-execute.ts), so a lease that runs out
// mid-execution completes and never doubles.
import type { Db, Queryable } from '../db/db.js';
import { type Proposal, proposal, recordProposalEvent } from './proposal-store.js';

/**
 * Takes the lease on executing an approved proposal until `until`; false when it is not approved
 * (finished already) or another executor's lease is still running.
 */
export async function claimExecution(q: Queryable, id: string, at: Date, until: Date): Promise<boolean> {
  const rows = await q.query(
    `UPDATE proposals SET claimed_until = $3
      WHERE id = $1 AND state = 'approved' AND (claimed_until IS NULL OR claimed_until <= $2) RETURNING id`,
    [id, at, until],
  );
  return rows.length > 0;
}

/** Locks an approved proposal for an execution that is one transaction with its finish; false when not approved. */
export async function lockApproved(tx: Queryable, id: string): Promise<boolean> {
  const rows = await tx.query(`SELECT id FROM proposals WHERE id = $1 AND state = 'approved' FOR UPDATE`, [
    id,
  ]);
  return rows.length > 0;
}

export interface Finish {
  readonly id: string;
  readonly outcome:
    | { readonly ok: true; readonly result: Record<string, unknown> }
    | { readonly ok: false; readonly error: string };
  readonly actor: string;
  readonly at: Date;
}

/**
 * An approved proposal executed (or failed for good), recorded once: false when it was finished
 * already (another executor got there first; nothing recorded). One transaction: the state and
 * its control_events record are written together or not at all. (Two autocommitted statements
 * were not: an executor killed while its UPDATE waited on a lock left a backend that committed
 * the UPDATE once the lock was free, and the record was never written.)
 */
export async function finishExecution(db: Db, f: Finish): Promise<boolean> {
  return db.transaction((tx) => finishExecutionIn(tx, f));
}

/** finishExecution inside the caller's transaction (an execution that is one transaction with it). */
export async function finishExecutionIn(q: Queryable, f: Finish): Promise<boolean> {
  const { outcome } = f;
  const rows = await q.query<{ action: string }>(
    `UPDATE proposals SET state = $2, result = $3::jsonb, error = $4, finished_at = $5, claimed_until = NULL
      WHERE id = $1 AND state = 'approved' RETURNING action`,
    [
      f.id,
      outcome.ok ? 'executed' : 'failed',
      outcome.ok ? JSON.stringify(outcome.result) : null,
      outcome.ok ? null : outcome.error,
      f.at,
    ],
  );
  const row = rows[0];
  if (row === undefined) return false;
  await recordProposalEvent(q, {
    action: outcome.ok ? 'proposal-execute' : 'proposal-fail',
    subject: f.id,
    reason: outcome.ok ? 'executed' : outcome.error,
    actor: f.actor,
    at: f.at,
    detail: outcome.ok ? { action: row.action, result: outcome.result } : { action: row.action },
  });
  return true;
}

/** Lets an executor that could not finish (a transient failure) leave the proposal for a retry. */
export async function releaseExecution(q: Queryable, id: string): Promise<void> {
  await q.query(`UPDATE proposals SET claimed_until = NULL WHERE id = $1 AND state = 'approved'`, [id]);
}

/**
 * Approved proposals no executor holds (none took the lease, or its lease ran out) decided at
 * least `graceMs` ago: what a process killed between an approval and its execution left.
 */
export async function strandedApproved(q: Queryable, at: Date, graceMs: number): Promise<Proposal[]> {
  const rows = await q.query<{ id: string }>(
    `SELECT id::text AS id FROM proposals
      WHERE state = 'approved' AND decided_at <= $2 AND (claimed_until IS NULL OR claimed_until <= $1)
      ORDER BY decided_at LIMIT 100`,
    [at, new Date(at.getTime() - graceMs)],
  );
  const found = await Promise.all(rows.map((r) => proposal(q, r.id)));
  return found.filter((p): p is Proposal => p !== null);
}
