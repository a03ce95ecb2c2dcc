// A mint proposal as the store takes it (createProposal), for tests of proposals: needing 2
// approvals, the proposer's counting, open for an hour from `at`.
import { randomUUID } from 'node:crypto';
import type { NewProposal } from '../../src/store/controls/proposal-store.js';

export const PROPOSED_AT = new Date('2026-11-29T08:00:00Z');

export function mintProposal(amount: string, extra: Partial<NewProposal> = {}): NewProposal {
  return {
    id: randomUUID(),
    action: 'mint',
    body: { to: '1BoatSLRHtKNngkdXEeobR76b53LETtpyT', amount },
    summary: `mint ${amount}`,
    required: 2,
    proposerApproves: true,
    proposedBy: 'minter',
    at: PROPOSED_AT,
    expiresAt: new Date(PROPOSED_AT.getTime() + 3_600_000),
    ...extra,
  };
}
