// The settings of approvals (issue 32, "no single key"), spread into the one schema
// (config-schema.ts): how long a proposal waits for its approvals.
import { Type } from 'typebox';

export const APPROVAL_SETTINGS = {
  proposalTtlMs: Type.Integer({
    minimum: 60_000,
    maximum: 30 * 24 * 3_600_000,
    default: 24 * 3_600_000,
    description:
      'How long a proposal (an action the approval policy holds back) stays open for approvals before it expires, ms.',
  }),
};
