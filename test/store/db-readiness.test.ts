// /readyz follows the database: ready while it answers, not ready (with the reason) when it
// cannot be reached, so a load balancer takes the instance out instead of collecting 503s.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { databaseReadiness } from '../../src/store/db-readiness.js';
import { openPgliteDb } from '../../src/store/pglite-db.js';
import { openPostgresDb } from '../../src/store/postgres-db.js';

const testDatabaseUrl = process.env.TEST_DATABASE_URL || undefined;

describe('database readiness', () => {
  it('is ready while the database answers, and not once it is closed', async () => {
    const db = await openPgliteDb('memory');
    const check = databaseReadiness(db);
    assert.deepEqual(await check(), { ready: true });
    await db.close();
    const after = await check();
    assert.equal(after.ready, false);
    assert.match(after.reason ?? '', /^database unreachable: /);
  });

  it('follows PostgreSQL the same way', {
    skip: testDatabaseUrl === undefined && 'set TEST_DATABASE_URL',
  }, async () => {
    const db = await openPostgresDb(testDatabaseUrl!, { max: 1 });
    const check = databaseReadiness(db);
    assert.deepEqual(await check(), { ready: true });
    await db.close();
    const after = await check();
    assert.equal(after.ready, false);
    assert.match(after.reason ?? '', /^database unreachable: /);
  });
});
