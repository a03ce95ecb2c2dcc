// The database going away under the service: which errors say so (a 503 and a retry, not a bug),
// and, on PostgreSQL, a transaction whose connection is cut between two queries fails without
// crashing the process (the checked-out client's 'error' event is heard) and the pool goes on.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { isDatabaseUnavailable } from '../../src/store/db/sql-error.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { testDatabaseUrl } from '../support/test-databases.js';

describe('isDatabaseUnavailable', () => {
  const withCode = (message: string, fields: Record<string, unknown>) =>
    Object.assign(new Error(message), fields);

  it('says yes to a server that is down, shutting down, starting up or cut off', () => {
    for (const err of [
      withCode('connect ECONNREFUSED 127.0.0.1:5432', { code: 'ECONNREFUSED' }),
      withCode('read ECONNRESET', { code: 'ECONNRESET' }),
      withCode('terminating connection due to administrator command', { code: '57P01', severity: 'FATAL' }),
      withCode('the database system is starting up', { code: '57P03', severity: 'FATAL' }),
      withCode('connection failure', { code: '08006', severity: 'FATAL' }),
      new Error('Connection terminated unexpectedly'),
      new Error('Client has encountered a connection error and is not queryable'),
      new AggregateError([withCode('connect ECONNREFUSED ::1:5432', { code: 'ECONNREFUSED' })], ''),
      new Error('wrapped', { cause: withCode('x', { code: 'ECONNREFUSED' }) }),
    ])
      assert.equal(isDatabaseUnavailable(err), true, String(err));
  });

  it('says no to SQL errors, bugs and non-errors', () => {
    for (const err of [
      withCode('duplicate key value', { code: '23505', severity: 'ERROR' }),
      withCode('syntax error', { code: '42601', severity: 'ERROR' }),
      new TypeError('x is undefined'),
      'ECONNREFUSED',
      null,
    ])
      assert.equal(isDatabaseUnavailable(err), false, String(err));
  });
});

describeOnEachDb(
  'a PostgreSQL connection cut inside a transaction',
  { migrate: false, only: 'postgres' },
  (fresh) => {
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);

    before(async () => {
      process.on('uncaughtException', onUncaught);
    });
    after(async () => {
      process.off('uncaughtException', onUncaught);
    });

    it('fails that transaction as unavailable, raises nothing uncaught, and the pool serves the next query', async () => {
      const admin = new pg.Client({ connectionString: testDatabaseUrl });
      await admin.connect();
      try {
        const failed = await fresh.db
          .transaction(async (tx) => {
            const [row] = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
            await admin.query('SELECT pg_terminate_backend($1)', [row!.pid]);
            // The client sits idle in the transaction while its connection is cut.
            await sleep(300);
            await tx.query('SELECT 1');
          })
          .then(
            () => null,
            (err: unknown) => err,
          );
        assert.notEqual(failed, null, 'the transaction failed');
        assert.equal(isDatabaseUnavailable(failed), true, String(failed));
        await sleep(100);
        assert.deepEqual(uncaught.map(String), []);
        const [row] = await fresh.db.query<{ one: number }>('SELECT 1 AS one');
        assert.equal(row?.one, 1);
      } finally {
        await admin.end();
      }
    });
  },
);
