// The settings of approvals (issue 32, "no single key"), spread into the one schema
// (config-schema.ts): how long a proposal waits for its approvals, and how long a process
// executing an approved one holds it before another may complete it.
import { Type } from 'typebox';

export const APPROVAL_SETTINGS = {
  proposalTtlMs: Type.Integer({
    minimum: 60_000,
    maximum: 30 * 24 * 3_600_000,
    default: 24 * 3_600_000,
    description:
      'How long a proposal (an action the approval policy holds back) stays open for approvals before it expires, ms.',
  }),
  proposalExecutionLeaseMs: Type.Integer({
    minimum: 1_000,
    maximum: 3_600_000,
    default: 120_000,
    description:
      'How long a process executing an approved proposal holds it before another may complete it (after a crash, or by POST /v2/admin/proposals/{id}/execute), ms. Longer than the slowest execution (a broadcast that times out).',
  }),
};
