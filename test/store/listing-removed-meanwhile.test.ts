// Freezing or blacklisting an address already on the list answers the standing entry. When the
// entry is removed after the insert found it and before it is read (an unfreeze or unblacklist
// committed in between, on another connection), the address is no longer on the list: it is put
// on it now, answered as a change, rather than failing on the entry that is gone. PostgreSQL
// only: PGlite runs one transaction at a time.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import {
  blacklistAddress,
  blacklistedAmong,
  unblacklistAddress,
} from '../../src/store/controls/blacklist-store.js';
import { freezeAddress, frozenAmong, unfreezeAddress } from '../../src/store/controls/freeze-store.js';
import type { Db } from '../../src/store/db/db.js';
import { openPostgresDb } from '../../src/store/db/postgres-db.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { interruptedDb } from '../support/interrupted-db.js';
import { testDatabaseUrl } from '../support/test-databases.js';
import { party } from '../support/token-world.js';

const at = new Date('2026-11-28T12:00:00Z');

const lists = [
  {
    name: 'freeze',
    add: (db: Db, address: string, reason: string) =>
      freezeAddress(db, { address, reason, actor: 'k1', at }).then((r) => r.changed),
    remove: (db: Db, address: string) => unfreezeAddress(db, { address, reason: 'lifted', actor: 'k2', at }),
    on: async (db: Db, address: string) => (await frozenAmong(db, [address])).has(address),
  },
  {
    name: 'blacklist',
    add: (db: Db, address: string, reason: string) =>
      blacklistAddress(db, { address, reason, actor: 'k1', at }).then((r) => r.changed),
    remove: (db: Db, address: string) =>
      unblacklistAddress(db, { address, reason: 'lifted', actor: 'k2', at }),
    on: async (db: Db, address: string) => (await blacklistedAmong(db, [address])).has(address),
  },
];

describeOnEachDb('a listing removed while it is added again', (fresh) => {
  for (const list of lists) {
    it(`${list.name}: the address is put on the list again, not a failure`, async (t) => {
      if (fresh.db.dialect !== 'postgres' || testDatabaseUrl === undefined)
        return t.skip('PGlite runs one transaction at a time');
      const other = await openPostgresDb(testDatabaseUrl, { schema: fresh.schema!, max: 2 });
      try {
        const address = party(`listing removed meanwhile ${list.name}`).address;
        assert.equal(await list.add(fresh.db, address, 'first'), true);
        assert.equal(await list.add(fresh.db, address, 'again'), false, 'standing: no change');
        let removed: unknown;
        const racing = interruptedDb(
          fresh.db,
          /ON CONFLICT \(address\) DO NOTHING/,
          async () => {
            removed = await list.remove(other, address);
          },
          true,
        );
        assert.equal(await list.add(racing, address, 'third'), true, 'on the list again, as a change');
        assert.notEqual(removed, null, 'the removal committed in between');
        assert.equal(await list.on(fresh.db, address), true);
      } finally {
        await other.close();
      }
    });
  }
});
