// Two api instances started at the same moment on an empty PostgreSQL database, with the same
// operator keys and the same named funding coin: exactly one of them deploys the token (one
// deploy transaction reaches ARC, one ticket, one feed record), the other finds it, and both
// serve the same token ID. Runs only when TEST_DATABASE_URL is set.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { http } from '../e2e/e2e-http.js';
import { type Instance, sharedWorld } from '../support/ledger-world.js';
import { testDatabaseUrl } from '../support/test-databases.js';

describe('two instances deploying on an empty database at once', {
  skip: testDatabaseUrl === undefined,
}, () => {
  const world = sharedWorld('concurrent deploy');
  const instances: Instance[] = [];
  let starts: PromiseSettledResult<Instance>[] = [];

  before(async () => {
    starts = await Promise.allSettled([world.start('api'), world.start('api')]);
    for (const s of starts) if (s.status === 'fulfilled') instances.push(s.value);
  });

  it('both start without an error', () => {
    const failures = starts.flatMap((s) => (s.status === 'rejected' ? [String(s.reason)] : []));
    assert.deepEqual(failures, []);
    assert.equal(instances.length, 2);
  });

  it('one deploy transaction is broadcast, and both serve its token', async () => {
    const [a, b] = instances.map((i) => i.service.parts.token.tokenId);
    assert.equal(a, b);
    const deployTxid = a!.split('_')[0]!;
    assert.deepEqual(world.ledger.broadcasts, [deployTxid], 'the deploy, sent once');
    for (const i of instances) {
      const res = await http(i.url!, 'GET', '/v1/config');
      assert.equal(res.status, 200, res.text);
      assert.equal((res.json as { tokenId: string }).tokenId, a);
    }
  });

  it('the database records one token, one ticket and one feed record', async () => {
    const q = instances[0]!.service.parts.db;
    const count = async (sql: string) => Number((await q.query<{ n: string }>(sql))[0]!.n);
    assert.equal(await count("SELECT count(*) AS n FROM settings WHERE key = 'token'"), 1);
    assert.equal(await count('SELECT count(*) AS n FROM tickets'), 1);
    assert.equal(await count('SELECT count(*) AS n FROM transactions'), 1);
  });
});
