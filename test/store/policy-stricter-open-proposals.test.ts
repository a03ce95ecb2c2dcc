// A policy made stricter applies to the proposals still open, on each database: a mint proposal
// made needing 2 approvals needs 3 once the mint rule asks 3, unless the rule's amount leaves it
// out; a rule made lower, and a proposal no longer open, keep what they had.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { setApprovalPolicy } from '../../src/store/controls/approval-policy-store.js';
import { createProposal, proposal } from '../../src/store/controls/proposal-store.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { mintProposal, PROPOSED_AT } from '../support/mint-proposal.js';

describeOnEachDb('a stricter approval policy', (fresh) => {
  const made = async (amount: string) => (await createProposal(fresh.db, mintProposal(amount))).proposal.id;
  const requiredOf = async (id: string) => (await proposal(fresh.db, id))!.required;
  const setRules = (rules: unknown) =>
    fresh.db.transaction((tx) =>
      setApprovalPolicy(tx, { rules, reason: 'test', actor: 'admin', at: PROPOSED_AT }),
    );

  it('raises what the open proposals it covers need, and never lowers it', async () => {
    const big = await made('900000');
    const small = await made('5000');
    const closed = await made('900000');
    await fresh.db.query("UPDATE proposals SET state = 'rejected' WHERE id = $1", [closed]);
    await setRules([{ action: 'mint', approvals: 3, above: '100000' }]);
    assert.equal(await requiredOf(big), 3, 'an open mint the rule covers needs 3 now');
    assert.equal(await requiredOf(small), 2, 'one below the rule’s amount keeps what it had');
    assert.equal(await requiredOf(closed), 2, 'a closed proposal is left as it was');
    await setRules([{ action: 'mint', approvals: 2 }]);
    assert.equal(await requiredOf(big), 3, 'a lower count does not lower it');
  });
});
