// Key revocations take turns, and the asking key must still be live when its turn comes. Two
// admin keys revoking each other at once touch different rows, so nothing made either wait:
// both succeeded and no admin key was left. On PostgreSQL only for the wait: PGlite runs one
// transaction at a time.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createApiKey, isLiveApiKey } from '../../src/store/access/api-keys-store.js';
import { revokeKey } from '../../src/usecases/admin/manage-api-keys.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { backendPid, holdOpen, inside, runWhileHeld } from '../support/held-transaction.js';

const MASTER = new Uint8Array(32).fill(3);

describeOnEachDb('revoking keys', (fresh) => {
  const admin = async (name: string) =>
    (await createApiKey(fresh.db, MASTER, { name, scopes: ['admin'] })).id;
  const now = () => new Date();

  it('a key revoked by another cannot revoke afterwards: refused, nothing revoked', async () => {
    const a = await admin('a');
    const b = await admin('b');
    assert.equal((await revokeKey({ db: fresh.db, now }, b, a)).kind, 'revoked');
    assert.equal((await revokeKey({ db: fresh.db, now }, a, b)).kind, 'asker-revoked');
    assert.equal(await isLiveApiKey(fresh.db, a), true);
    assert.equal((await revokeKey({ db: fresh.db, now }, a, a)).kind, 'in-use');
  });

  it('two admin keys revoking each other at once: one is revoked, the other refused', async (t) => {
    if (fresh.db.dialect !== 'postgres') return t.skip('the wait: PGlite runs one transaction at a time');
    const a = await admin('c');
    const b = await admin('d');
    // a revokes b, its transaction held open; b's revocation of a comes meanwhile.
    const first = holdOpen(fresh.db, async (tx) => {
      const done = await revokeKey({ db: inside(fresh.db, tx), now }, b, a);
      assert.equal(done.kind, 'revoked');
      return backendPid(tx);
    });
    const second = await runWhileHeld(
      fresh.db,
      first,
      () => revokeKey({ db: fresh.db, now }, a, b),
      "b's revocation to wait for a's",
    );
    assert.equal(second.kind, 'asker-revoked');
    assert.equal(await isLiveApiKey(fresh.db, a), true, 'an admin key is left');
    assert.equal(await isLiveApiKey(fresh.db, b), false);
  });
});
