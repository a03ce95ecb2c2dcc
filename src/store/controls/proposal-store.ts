// Proposals (migration 037): an issuer's action the approval policy holds back until K distinct
// keys approve it. Every state change happens under the proposal's row lock in one transaction
// with its record in control_events, so two approvals racing on two instances decide once:
//   open -> approved (the K-th distinct approval) -> executed | failed
//   open -> rejected (one rejection) | expired (past expires_at, seen by any later look)
// Executing an approved proposal (its lease and finish) is proposal-execution-store.ts; the
// policy itself is approval-policy-store.ts.
import type { ApprovableAction } from '../../domain/approval-policy.js';
import { holdLiveApiKey } from '../access/api-keys-store.js';
import type { Db, Queryable } from '../db/db.js';

export type ProposalState = 'open' | 'approved' | 'executed' | 'failed' | 'rejected' | 'expired';

/** How proposals, votes and their outcomes are named in control_events. */
export type ProposalEventAction =
  | 'proposal'
  | 'proposal-approve'
  | 'proposal-reject'
  | 'proposal-expire'
  | 'proposal-execute'
  | 'proposal-fail'
  | 'allowance-set'
  | 'allowance-spend'
  | 'policy-set';

export interface Vote {
  readonly keyId: string;
  readonly vote: 'approve' | 'reject';
  readonly reason: string;
  readonly at: Date;
}

export interface Proposal {
  readonly id: string;
  readonly action: ApprovableAction;
  readonly body: Readonly<Record<string, unknown>>;
  readonly summary: string;
  readonly required: number;
  readonly state: ProposalState;
  readonly proposedBy: string;
  readonly proposedAt: Date;
  readonly expiresAt: Date;
  readonly decidedAt: Date | null;
  readonly finishedAt: Date | null;
  readonly result: Readonly<Record<string, unknown>> | null;
  readonly error: string | null;
  readonly votes: readonly Vote[];
}

export interface NewProposal {
  readonly id: string;
  readonly action: ApprovableAction;
  readonly body: Readonly<Record<string, unknown>>;
  readonly summary: string;
  readonly required: number;
  readonly proposerApproves: boolean;
  readonly proposedBy: string;
  readonly at: Date;
  readonly expiresAt: Date;
  /** The request's Idempotency-Key, when it had one: the same request again answers this proposal. */
  readonly idempotency?: {
    readonly apiKeyId: string;
    readonly key: string;
    readonly requestHash: Uint8Array;
  };
}

/** The Idempotency-Key of a proposal was used with another request. */
export class ProposalKeyConflict extends Error {}

/** Appends to control_events (append-only, migration 021). */
export async function recordProposalEvent(
  q: Queryable,
  e: {
    readonly action: ProposalEventAction;
    readonly subject: string;
    readonly reason: string;
    readonly actor: string;
    readonly at: Date;
    readonly detail?: Readonly<Record<string, unknown>>;
  },
): Promise<void> {
  await q.query(
    'INSERT INTO control_events (action, subject, reason, actor, at, detail) VALUES ($1, $2, $3, $4, $5, $6::jsonb)',
    [e.action, e.subject, e.reason, e.actor, e.at, JSON.stringify(e.detail ?? {})],
  );
}

interface ProposalRow {
  id: string;
  action: ApprovableAction;
  body: unknown;
  summary: string;
  required: number;
  state: ProposalState;
  proposed_by: string;
  proposed_at: Date;
  expires_at: Date;
  decided_at: Date | null;
  finished_at: Date | null;
  result: unknown;
  error: string | null;
  [column: string]: unknown;
}

const COLUMNS = `id::text AS id, action, body, summary, required, state, proposed_by, proposed_at, expires_at,
  decided_at, finished_at, result, error`;

const parsed = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v) as Record<string, unknown>;

async function votesOf(q: Queryable, ids: readonly string[]): Promise<Map<string, Vote[]>> {
  const byId = new Map<string, Vote[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return byId;
  const rows = await q.query<{
    proposal_id: string;
    key_id: string;
    vote: 'approve' | 'reject';
    reason: string;
    at: Date;
  }>(
    `SELECT proposal_id::text AS proposal_id, key_id, vote, reason, at FROM proposal_votes
      WHERE proposal_id = ANY($1::uuid[]) ORDER BY at, key_id`,
    [ids],
  );
  for (const r of rows)
    byId.get(r.proposal_id)?.push({ keyId: r.key_id, vote: r.vote, reason: r.reason, at: r.at });
  return byId;
}

function proposalOf(r: ProposalRow, votes: readonly Vote[]): Proposal {
  return {
    id: r.id,
    action: r.action,
    body: parsed(r.body),
    summary: r.summary,
    required: Number(r.required),
    state: r.state,
    proposedBy: r.proposed_by,
    proposedAt: r.proposed_at,
    expiresAt: r.expires_at,
    decidedAt: r.decided_at,
    finishedAt: r.finished_at,
    result: r.result === null ? null : parsed(r.result),
    error: r.error,
    votes,
  };
}

export async function proposal(q: Queryable, id: string, lock = false): Promise<Proposal | null> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return null;
  const [row] = await q.query<ProposalRow>(
    `SELECT ${COLUMNS} FROM proposals WHERE id = $1${lock ? ' FOR UPDATE' : ''}`,
    [id],
  );
  if (row === undefined) return null;
  return proposalOf(row, (await votesOf(q, [row.id])).get(row.id) ?? []);
}

/** Proposals newest first, at most `limit` (of one state when given). */
export async function listProposals(q: Queryable, limit: number, state?: ProposalState): Promise<Proposal[]> {
  const rows = await q.query<ProposalRow>(
    `SELECT ${COLUMNS} FROM proposals WHERE ($1::text IS NULL OR state = $1)
      ORDER BY proposed_at DESC, id DESC LIMIT $2`,
    [state ?? null, limit],
  );
  const votes = await votesOf(
    q,
    rows.map((r) => r.id),
  );
  return rows.map((r) => proposalOf(r, votes.get(r.id) ?? []));
}

/**
 * Records a proposal, the proposer's approval (unless the policy says otherwise) and the event.
 * Under an Idempotency-Key that made a proposal already (any process, the unique index decides),
 * answers that one, `created` false; throws ProposalKeyConflict when that key made it for another
 * request.
 */
export async function createProposal(
  db: Db,
  p: NewProposal,
): Promise<{ readonly proposal: Proposal; readonly created: boolean }> {
  return db.transaction(async (tx) => {
    const key = p.idempotency;
    const inserted = await tx.query<{ id: string }>(
      `INSERT INTO proposals (id, action, body, summary, required, state, proposed_by, proposed_at, expires_at,
                              idempotency_api_key_id, idempotency_key, idempotency_request_hash)
       VALUES ($1, $2, $3::jsonb, $4, $5, 'open', $6, $7, $8, $9, $10, $11)
       ON CONFLICT (idempotency_api_key_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
       RETURNING id`,
      [
        p.id,
        p.action,
        JSON.stringify(p.body),
        p.summary,
        p.required,
        p.proposedBy,
        p.at,
        p.expiresAt,
        key?.apiKeyId ?? null,
        key?.key ?? null,
        key?.requestHash ?? null,
      ],
    );
    if (inserted.length === 0 && key !== undefined) {
      const [earlier] = await tx.query<{ id: string; same: boolean }>(
        `SELECT id, idempotency_request_hash = $3 AS same FROM proposals
          WHERE idempotency_api_key_id = $1 AND idempotency_key = $2`,
        [key.apiKeyId, key.key, key.requestHash],
      );
      if (earlier === undefined) throw new Error('a proposal conflicted on its Idempotency-Key and is gone');
      if (!earlier.same)
        throw new ProposalKeyConflict(`Idempotency-Key ${key.key} made a proposal for another request`);
      return { proposal: (await proposal(tx, earlier.id))!, created: false };
    }
    if (p.proposerApproves)
      await tx.query(
        `INSERT INTO proposal_votes (proposal_id, key_id, vote, reason, at) VALUES ($1, $2, 'approve', 'proposed', $3)`,
        [p.id, p.proposedBy, p.at],
      );
    await recordProposalEvent(tx, {
      action: 'proposal',
      subject: p.id,
      reason: p.summary,
      actor: p.proposedBy,
      at: p.at,
      detail: { action: p.action, required: p.required, proposerApproves: p.proposerApproves, body: p.body },
    });
    return { proposal: (await proposal(tx, p.id))!, created: true };
  });
}

export type VoteOutcome =
  | {
      readonly kind: 'voted';
      readonly proposal: Proposal;
      readonly decided: 'open' | 'approved' | 'rejected';
    }
  | { readonly kind: 'voted-already'; readonly proposal: Proposal }
  | { readonly kind: 'closed'; readonly proposal: Proposal }
  | { readonly kind: 'no-proposal' }
  /** The voting key was revoked before its vote's turn (keyMustBeLive). */
  | { readonly kind: 'key-revoked' };

/**
 * One key's vote, under the proposal's row lock: refused when the key voted already or the
 * proposal is not open (an expired one is marked so first); `decide` says what the votes make
 * it, and an approval or a rejection it decides is written in the same transaction.
 */
export async function castVote(
  db: Db,
  v: {
    readonly id: string;
    readonly keyId: string;
    readonly vote: 'approve' | 'reject';
    readonly reason: string;
    readonly at: Date;
    /**
     * The key is an API key whose revocation must stop its vote: its row is held for the vote's
     * transaction, so a revocation committed before the vote's turn refuses it and one asked
     * meanwhile waits for it.
     */
    readonly keyMustBeLive?: boolean;
  },
  decide: (votes: readonly Vote[], required: number) => 'open' | 'approved' | 'rejected',
): Promise<VoteOutcome> {
  return db.transaction(async (tx): Promise<VoteOutcome> => {
    const locked = await proposal(tx, v.id, true);
    if (locked === null) return { kind: 'no-proposal' };
    if (v.keyMustBeLive === true && !(await holdLiveApiKey(tx, v.keyId))) return { kind: 'key-revoked' };
    if (locked.state === 'open' && locked.expiresAt <= v.at) {
      await expireOne(tx, locked.id, v.at);
      return { kind: 'closed', proposal: (await proposal(tx, v.id))! };
    }
    if (locked.state !== 'open') return { kind: 'closed', proposal: locked };
    // The proposer's key approves once, by proposing (or not at all when the policy says its
    // proposal needs K other keys); it may still reject (withdraw) it.
    const proposerAgain = v.vote === 'approve' && v.keyId === locked.proposedBy;
    if (proposerAgain || locked.votes.some((x) => x.keyId === v.keyId))
      return { kind: 'voted-already', proposal: locked };
    await tx.query(
      'INSERT INTO proposal_votes (proposal_id, key_id, vote, reason, at) VALUES ($1, $2, $3, $4, $5)',
      [v.id, v.keyId, v.vote, v.reason, v.at],
    );
    const votes = [...locked.votes, { keyId: v.keyId, vote: v.vote, reason: v.reason, at: v.at }];
    // A key revoked since it voted (a compromised approver taken out) no longer counts: its row,
    // and every other voter's still live, is held to the commit, so a revocation asked meanwhile
    // waits for this decision. Voters that are no API key (the operator's own) always count.
    const revoked = await revokedVoters(
      tx,
      votes.map((x) => x.keyId),
    );
    const counted = votes.filter((x) => !revoked.has(x.keyId));
    const decided = decide(counted, locked.required);
    if (decided !== 'open')
      await tx.query('UPDATE proposals SET state = $2, decided_at = $3 WHERE id = $1', [v.id, decided, v.at]);
    await recordProposalEvent(tx, {
      action: v.vote === 'approve' ? 'proposal-approve' : 'proposal-reject',
      subject: v.id,
      reason: v.reason,
      actor: v.keyId,
      at: v.at,
      detail: {
        action: locked.action,
        approvals: counted.filter((x) => x.vote === 'approve').length,
        required: locked.required,
        state: decided,
      },
    });
    return { kind: 'voted', proposal: (await proposal(tx, v.id))!, decided };
  });
}

/** Of the voters, the API keys revoked; the others' rows held (FOR SHARE) to the commit. */
async function revokedVoters(tx: Queryable, keyIds: readonly string[]): Promise<Set<string>> {
  const rows = await tx.query<{ id: string; revoked: boolean }>(
    'SELECT id, revoked_at IS NOT NULL AS revoked FROM api_keys WHERE id = ANY($1::text[]) ORDER BY id FOR SHARE',
    [[...new Set(keyIds)]],
  );
  return new Set(rows.filter((r) => r.revoked).map((r) => r.id));
}

async function expireOne(tx: Queryable, id: string, at: Date): Promise<void> {
  await tx.query(`UPDATE proposals SET state = 'expired', decided_at = $2 WHERE id = $1 AND state = 'open'`, [
    id,
    at,
  ]);
  await recordProposalEvent(tx, {
    action: 'proposal-expire',
    subject: id,
    reason: 'expired',
    actor: 'expiry',
    at,
  });
}

/** Marks every open proposal past its expiry expired (each recorded once); answers their ids. */
export async function expireProposals(db: Db, at: Date): Promise<string[]> {
  return db.transaction(async (tx) => {
    const rows = await tx.query<{ id: string; action: string }>(
      `UPDATE proposals SET state = 'expired', decided_at = $1
        WHERE state = 'open' AND expires_at <= $1 RETURNING id::text AS id, action`,
      [at],
    );
    for (const r of rows)
      await recordProposalEvent(tx, {
        action: 'proposal-expire',
        subject: r.id,
        reason: 'expired',
        actor: 'expiry',
        at,
        detail: { action: r.action },
      });
    return rows.map((r) => r.id);
  });
}
