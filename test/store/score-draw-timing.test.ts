// How the service times its score draws (store/db/score-draw-timing.ts, docs/performance.md
// "Efficiency"): only statements that draw count, overlapping ones of one process count once, a
// marker counts from its first draw to its transaction's end, and every score drawn is counted.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { openPostgresDb } from '../../src/store/db/postgres-db.js';
import {
  drawAnswered,
  drawSent,
  drawsScores,
  markerReleased,
  markerTaken,
  scoreDrawTotals,
} from '../../src/store/db/score-draw-timing.js';
import { nextScores, SCORE_DRAW, SCORE_MARK_JOIN } from '../../src/store/feed/score.js';
import { testDatabaseUrl } from '../support/test-databases.js';

describe('score draw timing', () => {
  it('knows the statements that draw scores, and no other', () => {
    assert.equal(drawsScores(`SELECT ${SCORE_DRAW} FROM x ${SCORE_MARK_JOIN}`), true);
    assert.equal(drawsScores("SELECT nextval('other_seq')"), false);
    assert.equal(drawsScores('SELECT 1'), false);
  });

  it('counts overlapping draws and markers of one process once', () => {
    const before = scoreDrawTotals();
    const t = performance.now() - 1_000;
    markerTaken(t);
    drawSent(t);
    markerTaken(t + 50);
    drawSent(t + 50);
    drawAnswered(3, t + 100); // one still in flight: not yet counted
    drawAnswered(2, t + 130); // both drawn: from t to t + 130
    markerReleased(t + 150);
    markerReleased(t + 200); // markers: from t to t + 200
    drawSent(t + 300);
    drawAnswered(1, t + 310);
    const after = scoreDrawTotals();
    assert.equal(after.scoresDrawn - before.scoresDrawn, 6);
    assert.ok(Math.abs(after.drawSeconds - before.drawSeconds - 0.14) < 1e-9, `${after.drawSeconds}`);
    assert.ok(Math.abs(after.markerSeconds - before.markerSeconds - 0.2) < 1e-9, `${after.markerSeconds}`);
  });

  it('times a PostgreSQL transaction that draws, and not one that does not', {
    skip: testDatabaseUrl === undefined && 'set TEST_DATABASE_URL',
  }, async () => {
    const db = await openPostgresDb(testDatabaseUrl!, { max: 1 });
    try {
      // A session's own sequence (the one connection) stands in for the migrated schema's.
      await db.query('CREATE TEMP SEQUENCE IF NOT EXISTS change_score_seq');
      const before = scoreDrawTotals();
      await db.transaction(async (tx) => {
        await tx.query('SELECT 1');
        await sleep(30);
      });
      assert.deepEqual(scoreDrawTotals(), before);
      await db.transaction(async (tx) => {
        await nextScores(tx, 4);
        await sleep(50);
      });
      const after = scoreDrawTotals();
      assert.equal(after.scoresDrawn - before.scoresDrawn, 4);
      assert.ok(
        after.markerSeconds - before.markerSeconds >= 0.045,
        `${after.markerSeconds - before.markerSeconds}`,
      );
      const draw = after.drawSeconds - before.drawSeconds;
      assert.ok(draw > 0 && draw < after.markerSeconds - before.markerSeconds, `${draw}`);
    } finally {
      await db.close();
    }
  });
});
