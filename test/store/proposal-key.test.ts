// A proposal made under an Idempotency-Key, on each database: the same key and request make it
// once (the second call answers the first's proposal, `created` false), and the same key with
// another request is a ProposalKeyConflict, nothing written.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { requestHashOf } from '../../src/store/access/idempotency-store.js';
import { createProposal, ProposalKeyConflict } from '../../src/store/controls/proposal-store.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { mintProposal } from '../support/mint-proposal.js';

const proposalOf = (amount: string, key: string) =>
  mintProposal(amount, {
    idempotency: { apiKeyId: 'minter', key, requestHash: requestHashOf(['POST', '/v2/admin/mint', amount]) },
  });

describeOnEachDb('a proposal under an Idempotency-Key', (fresh) => {
  it('is made once per key and request; another request under the key is a conflict', async () => {
    const first = await createProposal(fresh.db, proposalOf('3', 'k-1'));
    assert.equal(first.created, true);
    const again = await createProposal(fresh.db, proposalOf('3', 'k-1'));
    assert.equal(again.created, false);
    assert.equal(again.proposal.id, first.proposal.id);
    await assert.rejects(createProposal(fresh.db, proposalOf('4', 'k-1')), ProposalKeyConflict);
    const other = await createProposal(fresh.db, proposalOf('3', 'k-2'));
    assert.equal(other.created, true, 'another key makes its own');
    const [rows] = await fresh.db.query<{ n: string }>('SELECT count(*) AS n FROM proposals');
    assert.equal(Number(rows!.n), 2);
  });
});
