// The score lock's held time as the service counts it (docs/performance.md "Efficiency"): only
// transactions that take the lock count, from the statement that takes it to their end, and two
// holders of one process never count the same moment twice.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { openPostgresDb } from '../../src/store/db/postgres-db.js';
import {
  recordScoreLockHeld,
  scoreLockTotals,
  takesScoreLock,
} from '../../src/store/db/score-lock-timing.js';
import { lockScores, SCORE_LOCK_JOIN, SCORE_LOCK_KEY } from '../../src/store/feed/score.js';
import { testDatabaseUrl } from '../support/test-databases.js';

describe('score lock timing', () => {
  it('knows the statements that take the score lock, and no other', () => {
    assert.equal(takesScoreLock(`SELECT 1 FROM x ${SCORE_LOCK_JOIN}`), true);
    assert.equal(takesScoreLock('SELECT pg_advisory_xact_lock($1)', [SCORE_LOCK_KEY]), true);
    assert.equal(takesScoreLock('SELECT pg_advisory_xact_lock($1)', [42]), false);
    assert.equal(takesScoreLock('SELECT 1'), false);
  });

  it('counts overlapping holders of one process once', () => {
    const before = scoreLockTotals();
    const now = performance.now() - 1_000; // no holder of this process ended since
    recordScoreLockHeld(now, now + 100); // held 100 ms
    recordScoreLockHeld(now + 50, now + 130); // waited from +50, held from +100 to +130
    const after = scoreLockTotals();
    assert.equal(after.holds - before.holds, 2);
    assert.ok(
      Math.abs(after.heldSeconds - before.heldSeconds - 0.13) < 1e-9,
      `${after.heldSeconds - before.heldSeconds}`,
    );
  });

  it('times a PostgreSQL transaction that takes the lock, and not one that does not', {
    skip: testDatabaseUrl === undefined && 'set TEST_DATABASE_URL',
  }, async () => {
    const db = await openPostgresDb(testDatabaseUrl!, { max: 1 });
    try {
      // lockScores takes the writer's marker too, which reads the score sequence: a session's own
      // (the one connection) stands in for the migrated schema's.
      await db.query('CREATE TEMP SEQUENCE IF NOT EXISTS change_score_seq');
      const before = scoreLockTotals();
      await db.transaction(async (tx) => {
        await tx.query('SELECT 1');
        await sleep(30);
      });
      assert.equal(scoreLockTotals().holds, before.holds);
      await db.transaction(async (tx) => {
        await lockScores(tx);
        await sleep(50);
      });
      const after = scoreLockTotals();
      assert.equal(after.holds - before.holds, 1);
      assert.ok(after.heldSeconds - before.heldSeconds >= 0.045, `${after.heldSeconds - before.heldSeconds}`);
    } finally {
      await db.close();
    }
  });
});
