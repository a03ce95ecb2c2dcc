// An Idempotency-Key retry of a held-back mint answers the same proposal (docs/operations.md),
// also when it reaches another api instance while the first is in flight: the proposal keeps
// the key, and the database's unique index decides. Before, each instance made its own open
// proposal, and approvers could approve, and so execute, the mint twice. The same key with
// another body is refused 422 IDEMPOTENCY_CONFLICT. PostgreSQL (two instances).
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createApiKey } from '../../src/store/access/api-keys-store.js';
import { http } from '../e2e/e2e-http.js';
import { type Instance, sharedWorld } from '../support/ledger-world.js';
import { testDatabaseUrl } from '../support/test-databases.js';
import { party } from '../support/token-world.js';

describe('a held-back mint retried on two instances', { skip: testDatabaseUrl === undefined }, () => {
  const world = sharedWorld('proposal idempotency');
  const instances: Instance[] = [];
  const keys: Record<string, { id: string; key: string }> = {};

  before(async () => {
    instances.push(await world.start('api'));
    await world.ledger.devnet.mine(1);
    instances.push(await world.start('api'));
    const first = instances[0]!.service.parts;
    for (const name of ['admin', 'minter'] as const) {
      const made = await createApiKey(first.db, first.masterKey, {
        name,
        scopes: [name === 'admin' ? 'admin' : 'mint'],
      });
      keys[name] = { id: made.id, key: made.key };
    }
    const set = await http(instances[0]!.url, 'PUT', '/v2/admin/approvals/policy', {
      key: keys.admin!.key,
      body: { rules: [{ action: 'mint', approvals: 2 }], reason: 'two keys' },
    });
    assert.equal(set.status, 200, set.text);
  });

  it('the same Idempotency-Key and body on two instances at once make one proposal', async () => {
    const to = party('proposal idempotency to');
    for (let round = 0; round < 5; round++) {
      const idem = `held-mint-${round}`;
      const asked = await Promise.all(
        instances.map((i) =>
          http(i.url, 'POST', '/v2/admin/mint', {
            key: keys.minter!.key,
            body: { to: to.address, amount: '3' },
            headers: { 'idempotency-key': idem },
          }),
        ),
      );
      for (const a of asked) assert.equal(a.status, 202, a.text);
      const ids = asked.map((a) => (a.json as { id: string }).id);
      assert.equal(ids[0], ids[1], 'both instances answer the same proposal');
    }
    const other = await http(instances[1]!.url, 'POST', '/v2/admin/mint', {
      key: keys.minter!.key,
      body: { to: to.address, amount: '4' },
      headers: { 'idempotency-key': 'held-mint-0' },
    });
    assert.equal(other.status, 422, other.text);
    assert.equal((other.json as { code: string }).code, 'IDEMPOTENCY_CONFLICT');
    const list = await http(instances[0]!.url, 'GET', '/v2/admin/proposals?state=open', {
      key: keys.admin!.key,
    });
    const open = (list.json as { proposals: { id: string; action: string }[] }).proposals.filter(
      (p) => p.action === 'mint',
    );
    assert.equal(
      open.length,
      5,
      `5 requests (each sent twice with one Idempotency-Key) left ${open.length} open mint proposals`,
    );
  });
});
