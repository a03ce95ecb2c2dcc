// Issue 32, no single key, across two api instances on one PostgreSQL database: two keys
// approving one mint proposal at the same instant through two instances make one K-th approval
// (the other is answered 409 PROPOSAL_CLOSED) and one mint; two completions racing after it
// answer the same transaction and record one execution; and an executor killed after it
// submitted the approved mint but before it recorded the execution (simulated: the vote
// committed without execution, then the mint submitted under the proposal's id) is completed
// by POST .../execute on the other instance with that same transaction, never a second mint.
// A held-back mint sent to both instances at once with one Idempotency-Key makes one proposal
// (the proposal keeps the key; before, each instance made its own, and approvers could execute
// both); the same key with another body is 422 IDEMPOTENCY_CONFLICT.
// Runs only when TEST_DATABASE_URL is set.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { apiContextOf } from '../../src/compose.js';
import { tally } from '../../src/domain/approval-policy.js';
import { createApiKey } from '../../src/store/access/api-keys-store.js';
import { castVote } from '../../src/store/controls/proposal-store.js';
import { openPostgresDb } from '../../src/store/db/postgres-db.js';
import { preparedFor } from '../../src/usecases/controls/proposals-execute.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import { assertProblem, http, utxosOf } from '../e2e/e2e-http.js';
import { eventually } from '../e2e/support.js';
import { type Instance, sharedWorld } from '../support/ledger-world.js';
import { testDatabaseUrl } from '../support/test-databases.js';
import { party } from '../support/token-world.js';

interface P {
  id: string;
  state: string;
  result: { txid?: string } | null;
  answer?: { txid?: string } | null;
}

describe('approvals on two api instances', { skip: testDatabaseUrl === undefined }, () => {
  const world = sharedWorld('approvals two');
  const instances: Instance[] = [];
  const keys: Record<string, { id: string; key: string }> = {};

  before(async () => {
    instances.push(await world.start('api'));
    await world.ledger.devnet.mine(1);
    await world.start('tracker');
    instances.push(await world.start('api'));
    const first = instances[0]!.service.parts;
    for (const name of ['admin', 'minterA', 'minterB', 'minterC'] as const) {
      const made = await createApiKey(first.db, first.masterKey, {
        name,
        scopes: [name === 'admin' ? 'admin' : 'mint'],
      });
      keys[name] = { id: made.id, key: made.key };
    }
    const set = await http(instances[0]!.url, 'PUT', '/v2/admin/approvals/policy', {
      key: keys.admin!.key,
      body: { rules: [{ action: 'mint', approvals: 2, above: '100000' }], reason: 'two keys' },
    });
    assert.equal(set.status, 200, set.text);
  });

  const propose = async (to: string) => {
    const asked = await http(instances[0]!.url, 'POST', '/v2/admin/mint', {
      key: keys.minterA!.key,
      body: { to, amount: '2' },
    });
    assert.equal(asked.status, 202, asked.text);
    return (asked.json as P).id;
  };
  const executions = async (id: string) => {
    const events = await http(instances[0]!.url, 'GET', '/v2/admin/controls/events', {
      key: keys.admin!.key,
    });
    return (events.json as { events: { action: string; subject: string }[] }).events.filter(
      (e) => e.subject === id && e.action === 'proposal-execute',
    ).length;
  };
  const outputsOf = async (address: string, count: number) => {
    await world.ledger.devnet.mine(1);
    return eventually(async () => {
      const list = await utxosOf(instances[1]!.url, keys.admin!.key, address);
      return list.length >= count ? list : undefined;
    }, 'mint seen');
  };

  it('two approvals racing through two instances: one runs the mint, once', async () => {
    for (let round = 0; round < 3; round++) {
      const to = party(`approvals race ${round}`);
      const id = await propose(to.address);
      const [b, c] = await Promise.all([
        http(instances[0]!.url, 'POST', `/v2/admin/proposals/${id}/approve`, {
          key: keys.minterB!.key,
          body: {},
        }),
        http(instances[1]!.url, 'POST', `/v2/admin/proposals/${id}/approve`, {
          key: keys.minterC!.key,
          body: {},
        }),
      ]);
      const won = [b, c].filter((a) => a.status === 200);
      assert.equal(won.length, 1, `${b.status} ${b.text} / ${c.status} ${c.text}`);
      assertProblem([b, c].find((a) => a.status !== 200)!, 409, 'PROPOSAL_CLOSED');
      const txid = (won[0]!.json as P).answer?.txid;
      assert.equal((won[0]!.json as P).state, 'executed', won[0]!.text);
      const again = await Promise.all(
        instances.map((i) =>
          http(i.url, 'POST', `/v2/admin/proposals/${id}/execute`, { key: keys.minterB!.key }),
        ),
      );
      for (const a of again) assert.equal((a.json as P).result?.txid, txid, a.text);
      assert.equal(await executions(id), 1);
      const outputs = await outputsOf(to.address, 1);
      assert.deepEqual(
        outputs.map((o) => o.amount),
        [200_000n],
      );
    }
  });

  it('an executor killed after submitting the mint is completed with the same transaction', async () => {
    const to = party('approvals crash');
    const id = await propose(to.address);
    // The K-th approval committed, and its process died before executing (no lease taken).
    const db = await openPostgresDb(world.databaseUrl, { max: 2 });
    try {
      const voted = await castVote(
        db,
        { id, keyId: keys.minterB!.id, vote: 'approve', reason: 'then killed', at: new Date() },
        tally,
      );
      assert.equal(voted.kind === 'voted' && voted.decided, 'approved');
    } finally {
      await db.close();
    }
    // ... or it died after the mint was submitted under the proposal's id, before recording it.
    const parts = instances[0]!.service.parts;
    const minted = await mintTokens(
      apiContextOf(parts),
      parts.keys.mint,
      { to: to.address, amount: 200_000n, minter: keys.minterA!.id },
      preparedFor(apiContextOf(parts), id),
    );
    const done = await http(instances[1]!.url, 'POST', `/v2/admin/proposals/${id}/execute`, {
      key: keys.minterC!.key,
    });
    assert.equal(done.status, 200, done.text);
    assert.equal((done.json as P).state, 'executed');
    assert.equal((done.json as P).result?.txid, minted.txid, 'the kept transaction, not a second mint');
    assert.equal(await executions(id), 1);
    const outputs = await outputsOf(to.address, 1);
    assert.equal(outputs.length, 1);
  });

  it('the same Idempotency-Key and body on two instances at once make one proposal', async () => {
    const to = party('proposal idempotency to');
    const ids: string[] = [];
    for (let round = 0; round < 5; round++) {
      const asked = await Promise.all(
        instances.map((i) =>
          http(i.url, 'POST', '/v2/admin/mint', {
            key: keys.minterC!.key,
            body: { to: to.address, amount: '3' },
            headers: { 'idempotency-key': `held-mint-${round}` },
          }),
        ),
      );
      for (const a of asked) assert.equal(a.status, 202, a.text);
      const [first, second] = asked.map((a) => (a.json as { id: string }).id);
      assert.equal(first, second, 'both instances answer the same proposal');
      ids.push(first!);
    }
    const other = await http(instances[1]!.url, 'POST', '/v2/admin/mint', {
      key: keys.minterC!.key,
      body: { to: to.address, amount: '4' },
      headers: { 'idempotency-key': 'held-mint-0' },
    });
    assertProblem(other, 422, 'IDEMPOTENCY_CONFLICT');
    const list = await http(instances[0]!.url, 'GET', '/v2/admin/proposals?state=open', {
      key: keys.admin!.key,
    });
    const open = (list.json as { proposals: { id: string; body: { to?: string } }[] }).proposals.filter(
      (p) => p.body.to === to.address,
    );
    assert.deepEqual(
      open.map((p) => p.id).sort(),
      [...ids].sort(),
      `5 requests (each sent twice with one Idempotency-Key) left ${open.length} open mint proposals`,
    );
  });
});
