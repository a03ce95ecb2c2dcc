// The votes of a key revoked after it voted no longer count, on each database: a proposal its
// proposer's approval and one more would have approved stays open once the proposer's key is
// revoked (a compromised approver taken out), until another live key approves it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import { tally } from '../../src/domain/approval-policy.js';
import { createApiKey, revokeApiKey } from '../../src/store/access/api-keys-store.js';
import { castVote, createProposal } from '../../src/store/controls/proposal-store.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { mintProposal, PROPOSED_AT } from '../support/mint-proposal.js';

const at = PROPOSED_AT;
const MASTER = new Uint8Array(randomBytes(32));

describeOnEachDb('a vote of a key revoked since', (fresh) => {
  it('does not count toward the approvals a proposal needs', async () => {
    const [proposer, second, third] = await Promise.all(
      ['proposer', 'second', 'third'].map((name) =>
        createApiKey(fresh.db, MASTER, { name, scopes: ['mint'] }),
      ),
    );
    const { proposal } = await createProposal(fresh.db, mintProposal('500000', { proposedBy: proposer!.id }));
    assert.equal(await revokeApiKey(fresh.db, proposer!.id, at), true);
    const vote = (keyId: string) =>
      castVote(
        fresh.db,
        { id: proposal.id, keyId, vote: 'approve', reason: 'ok', at, keyMustBeLive: true },
        tally,
      );
    const afterSecond = await vote(second!.id);
    assert.equal(
      afterSecond.kind === 'voted' && afterSecond.decided,
      'open',
      'the revoked proposer no longer counts',
    );
    const afterThird = await vote(third!.id);
    assert.equal(afterThird.kind === 'voted' && afterThird.decided, 'approved', 'two live keys approve it');
  });
});
