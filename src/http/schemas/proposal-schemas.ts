// The wire shapes of approvals (issue 32, "no single key"): a proposal and its votes, the
// approval policy, and per-key mint allowances, with examples for the API reference.
import { Type } from 'typebox';
import { APPROVABLE_ACTIONS, MAX_APPROVALS } from '../../domain/approval-policy.js';

const Time = Type.String({ format: 'date-time' });
const KEY = '0192a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
const OTHER = '0192a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c';
const PROPOSAL_ID = '0192f0e1-d2c3-7b4a-9e8f-7a6b5c4d3e2f';

export const ProposalState = Type.Enum(['open', 'approved', 'executed', 'failed', 'rejected', 'expired'], {
  description:
    'open: waiting for approvals; approved: the K-th approval arrived, executing; executed or failed: ran once; rejected: one key rejected it; expired: not approved in time (proposalTtlMs)',
});

export const VoteJson = Type.Object({
  keyId: Type.String({ description: 'The admin key id that voted' }),
  vote: Type.Enum(['approve', 'reject']),
  reason: Type.String(),
  at: Time,
});

export const ProposalJson = Type.Object(
  {
    id: Type.String(),
    action: Type.Enum([...APPROVABLE_ACTIONS]),
    summary: Type.String({ description: 'What it does, in one line' }),
    body: Type.Record(Type.String(), Type.Unknown(), {
      description: "The action's validated request, as it will run (a mint's amount in atomic units)",
    }),
    required: Type.Integer({ minimum: 1, description: 'K: distinct approving keys that run it' }),
    approvals: Type.Integer({ minimum: 0 }),
    state: ProposalState,
    proposedBy: Type.String({ description: 'The admin key id that proposed it' }),
    proposedAt: Time,
    expiresAt: Time,
    decidedAt: Type.Union([Time, Type.Null()]),
    finishedAt: Type.Union([Time, Type.Null()]),
    result: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
      description: 'What the execution did (a mint: ticketId and txid)',
    }),
    error: Type.Union([Type.String(), Type.Null()], { description: 'Why the execution failed' }),
    votes: Type.Array(VoteJson),
  },
  {
    description:
      'An action the approval policy holds back until K distinct keys approve it (202 from the route that was asked).',
    examples: [
      {
        id: PROPOSAL_ID,
        action: 'mint',
        summary: 'mint 50000 to 1BoatSLRHtKNngkdXEeobR76b53LETtpyT',
        body: { to: '1BoatSLRHtKNngkdXEeobR76b53LETtpyT', amount: '5000000000' },
        required: 2,
        approvals: 1,
        state: 'open',
        proposedBy: KEY,
        proposedAt: '2026-11-27T10:00:00.000Z',
        expiresAt: '2026-11-28T10:00:00.000Z',
        decidedAt: null,
        finishedAt: null,
        result: null,
        error: null,
        votes: [{ keyId: KEY, vote: 'approve', reason: 'proposed', at: '2026-11-27T10:00:00.000Z' }],
      },
    ],
  },
);

export const ProposalList = Type.Object({
  proposals: Type.Array(ProposalJson, { description: 'Newest first' }),
});

export const Voted = Type.Object(
  {
    ...ProposalJson.properties,
    answer: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
      description:
        'When this approval ran the action: what it answered (a created key is shown here once, never stored)',
    }),
    executionError: Type.Union([Type.String(), Type.Null()], {
      description:
        'Approved, but the execution could not finish now (the ledger down, a pause): complete it with POST /v2/admin/proposals/{id}/execute',
    }),
  },
  {
    examples: [
      {
        id: PROPOSAL_ID,
        action: 'mint',
        summary: 'mint 50000 to 1BoatSLRHtKNngkdXEeobR76b53LETtpyT',
        body: { to: '1BoatSLRHtKNngkdXEeobR76b53LETtpyT', amount: '5000000000' },
        required: 2,
        approvals: 2,
        state: 'executed',
        proposedBy: KEY,
        proposedAt: '2026-11-27T10:00:00.000Z',
        expiresAt: '2026-11-28T10:00:00.000Z',
        decidedAt: '2026-11-27T10:05:00.000Z',
        finishedAt: '2026-11-27T10:05:01.000Z',
        result: { ticketId: '0192f0e2-0000-7000-8000-000000000001', txid: 'ab'.repeat(32) },
        error: null,
        votes: [
          { keyId: KEY, vote: 'approve', reason: 'proposed', at: '2026-11-27T10:00:00.000Z' },
          { keyId: OTHER, vote: 'approve', reason: 'matches invoice 881', at: '2026-11-27T10:05:00.000Z' },
        ],
        answer: { ticketId: '0192f0e2-0000-7000-8000-000000000001', txid: 'ab'.repeat(32) },
        executionError: null,
      },
    ],
  },
);

export const VoteBody = Type.Object(
  { reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'Why (recorded)' })) },
  { additionalProperties: false, examples: [{ reason: 'matches invoice 881' }] },
);

export const ProposalParams = Type.Object({ id: Type.String({ format: 'uuid' }) });

export const ProposalQuery = Type.Object({
  state: Type.Optional(ProposalState),
  auth_token: Type.Optional(Type.String({ description: 'API key (or send Authorization: Bearer <key>)' })),
});

export const RuleJson = Type.Object(
  {
    action: Type.Enum([...APPROVABLE_ACTIONS]),
    approvals: Type.Integer({
      minimum: 1,
      maximum: MAX_APPROVALS,
      description: 'K: distinct keys whose approval runs the action',
    }),
    above: Type.Optional(
      Type.String({
        pattern: '^(0|[1-9][0-9]{0,30})$',
        description: 'mint only: the rule holds back mints strictly above this many atomic units',
      }),
    ),
    proposerApproves: Type.Optional(
      Type.Boolean({ description: "Whether the proposer's key counts as the first approval (default true)" }),
    ),
  },
  { additionalProperties: false },
);

const RULES_EXAMPLE = [
  { action: 'mint', approvals: 2, above: '10000000000', proposerApproves: true },
  { action: 'seize', approvals: 2, proposerApproves: true },
  { action: 'unpause', approvals: 2, proposerApproves: true },
  { action: 'create-key', approvals: 2, proposerApproves: true },
  { action: 'raise-allowance', approvals: 2, proposerApproves: true },
  { action: 'set-policy', approvals: 3, proposerApproves: true },
];

export const PolicyJson = Type.Object(
  {
    rules: Type.Array(RuleJson),
    changedBy: Type.String(),
    changedAt: Time,
  },
  { examples: [{ rules: RULES_EXAMPLE, changedBy: KEY, changedAt: '2026-11-27T09:00:00.000Z' }] },
);

export const PolicyBody = Type.Object(
  {
    rules: Type.Array(RuleJson, { maxItems: APPROVABLE_ACTIONS.length }),
    reason: Type.String({ minLength: 1, maxLength: 500, description: 'Why (recorded)' }),
  },
  { additionalProperties: false, examples: [{ rules: RULES_EXAMPLE, reason: 'board resolution 2026-14' }] },
);

export const AllowanceJson = Type.Object(
  {
    keyId: Type.String(),
    remaining: Type.Object({ atomic: Type.Integer({ minimum: 0 }), tokens: Type.String() }),
    setBy: Type.String(),
    setAt: Time,
  },
  {
    examples: [
      {
        keyId: KEY,
        remaining: { atomic: 100000000000, tokens: '1000000' },
        setBy: OTHER,
        setAt: '2026-11-27T09:00:00.000Z',
      },
    ],
  },
);

export const AllowanceList = Type.Object({
  allowances: Type.Array(AllowanceJson, {
    description: 'Keys with an allowance; a key not listed mints without a cap',
  }),
});

export const AllowanceBody = Type.Object(
  {
    amount: Type.Union(
      [
        Type.String({ minLength: 1, maxLength: 40, description: 'Decimal token amount, e.g. "1000000"' }),
        Type.Null(),
      ],
      { description: 'What the key may mint from now on; null removes the cap' },
    ),
    reason: Type.String({ minLength: 1, maxLength: 500, description: 'Why (recorded)' }),
  },
  { additionalProperties: false, examples: [{ amount: '1000000', reason: 'Q4 issuance plan' }] },
);

export const AllowanceSet = Type.Object(
  {
    keyId: Type.String(),
    before: Type.Union([Type.String(), Type.Null()], { description: 'Atomic units before; null: no cap' }),
    after: Type.Union([Type.String(), Type.Null()], { description: 'Atomic units now; null: no cap' }),
  },
  { examples: [{ keyId: KEY, before: '0', after: '100000000000' }] },
);
