// A Queryable that runs its statements one at a time: never two in flight, in the order asked,
// and one that fails does not stop those behind it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Queryable, Row } from '../../src/store/db/db.js';
import { oneAtATime } from '../../src/store/db/one-at-a-time.js';

/** A database stand-in that answers each statement after `ms`, counting how many are in flight. */
function slowDb(ms: number) {
  const seen = { inFlight: 0, most: 0, order: [] as string[] };
  const q: Queryable = {
    async query<R extends Row = Row>(sql: string): Promise<R[]> {
      seen.inFlight++;
      seen.most = Math.max(seen.most, seen.inFlight);
      seen.order.push(sql);
      await new Promise((r) => setTimeout(r, ms));
      seen.inFlight--;
      if (sql === 'fail') throw new Error('refused');
      return [{ sql } as unknown as R];
    },
  };
  return { q, seen };
}

test('statements asked at once run one at a time, in the order asked', async () => {
  const { q, seen } = slowDb(5);
  const lane = oneAtATime(q);
  const answers = await Promise.all(['a', 'b', 'c', 'd'].map((sql) => lane.query(sql)));
  assert.equal(seen.most, 1);
  assert.deepEqual(seen.order, ['a', 'b', 'c', 'd']);
  assert.deepEqual(
    answers.map((rows) => rows[0]?.sql),
    ['a', 'b', 'c', 'd'],
  );
});

test('a statement that fails rejects its own caller and lets the next run', async () => {
  const { q, seen } = slowDb(1);
  const lane = oneAtATime(q);
  const [failed, next] = await Promise.allSettled([lane.query('fail'), lane.query('after')]);
  assert.equal(failed.status, 'rejected');
  assert.equal(next.status, 'fulfilled');
  assert.deepEqual(seen.order, ['fail', 'after']);
  assert.equal(seen.most, 1);
});
