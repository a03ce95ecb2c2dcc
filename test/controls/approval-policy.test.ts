// The approval policy as pure rules (src/domain/approval-policy.ts, issue 32): which actions a
// policy holds back and with how many approvals, a mint rule's amount, a tally where one
// rejection closes a proposal, what raises an allowance, and the policies refused.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  approvalsFor,
  NO_APPROVALS,
  PolicyError,
  parsePolicy,
  policyJson,
  raisesAllowance,
  tally,
} from '../../src/domain/approval-policy.js';

const policy = parsePolicy([
  { action: 'mint', approvals: 2, above: '1000' },
  { action: 'seize', approvals: 3 },
  { action: 'unpause', approvals: 1, proposerApproves: false },
  { action: 'unfreeze', approvals: 1 },
]);

describe('approval policy', () => {
  it('holds back what its rules name, mints only above their amount', () => {
    assert.equal(approvalsFor(NO_APPROVALS, 'mint', 10n ** 12n), null);
    assert.equal(approvalsFor(policy, 'mint', 1000n), null);
    assert.deepEqual(approvalsFor(policy, 'mint', 1001n), { required: 2, proposerApproves: true });
    assert.deepEqual(approvalsFor(policy, 'seize'), { required: 3, proposerApproves: true });
    assert.deepEqual(approvalsFor(policy, 'unpause'), { required: 1, proposerApproves: false });
    assert.equal(approvalsFor(policy, 'unfreeze'), null, 'K = 1 counting the proposer runs at once');
    assert.equal(approvalsFor(policy, 'create-key'), null);
  });

  it('tallies distinct approvals to K; one rejection closes it', () => {
    const yes = { vote: 'approve' as const };
    assert.equal(tally([yes], 2), 'open');
    assert.equal(tally([yes, yes], 2), 'approved');
    assert.equal(tally([yes, yes, { vote: 'reject' }], 2), 'rejected');
  });

  it('says what raises an allowance (null: no cap)', () => {
    assert.equal(raisesAllowance(10n, 11n), true);
    assert.equal(raisesAllowance(10n, 10n), false);
    assert.equal(raisesAllowance(10n, 3n), false);
    assert.equal(raisesAllowance(10n, null), true);
    assert.equal(raisesAllowance(null, 5n), false);
    assert.equal(raisesAllowance(null, null), false);
  });

  it('round-trips through its JSON and refuses what it cannot mean', () => {
    assert.deepEqual(parsePolicy(policyJson(policy)), policy);
    for (const bad of [
      {},
      [{ action: 'burn', approvals: 2 }],
      [{ action: 'mint', approvals: 0 }],
      [{ action: 'mint', approvals: 11 }],
      [{ action: 'mint', approvals: 2.5 }],
      [{ action: 'seize', approvals: 2, above: '5' }],
      [{ action: 'mint', approvals: 2, above: 5 }],
      [
        { action: 'mint', approvals: 2 },
        { action: 'mint', approvals: 3 },
      ],
      [{ action: 'mint', approvals: 2, proposerApproves: 'no' }],
    ])
      assert.throws(() => parsePolicy(bad), PolicyError, JSON.stringify(bad));
  });
});
