// /readyz follows the database: ready while it answers, not ready (with the reason) when it
// cannot be reached, so a load balancer takes the instance out instead of collecting 503s.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Db } from '../../src/store/db/db.js';
import { databaseReadiness } from '../../src/store/db/db-readiness.js';
import { openPgliteDb } from '../../src/store/db/pglite-db.js';
import { openPostgresDb } from '../../src/store/db/postgres-db.js';
import { testDatabaseUrl } from '../support/test-databases.js';

const databases: { name: string; open: () => Promise<Db>; skip?: string | false }[] = [
  { name: 'PGlite', open: () => openPgliteDb('memory') },
  {
    name: 'PostgreSQL',
    open: () => openPostgresDb(testDatabaseUrl!, { max: 1 }),
    skip: testDatabaseUrl === undefined && 'set TEST_DATABASE_URL',
  },
];

describe('database readiness', () => {
  for (const { name, open, skip } of databases) {
    it(`is ready while ${name} answers, and not once it is closed`, { skip }, async () => {
      const db = await open();
      const check = databaseReadiness(db);
      assert.deepEqual(await check(), { ready: true });
      await db.close();
      const after = await check();
      assert.equal(after.ready, false);
      assert.match(after.reason ?? '', /^database unreachable: /);
    });
  }
});
