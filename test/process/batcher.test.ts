// Natural batching (src/process/batcher.ts): what arrives while a batch runs forms the next one,
// each item gets its own result, a failing batch fails only its own items, and the limits hold.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createBatcher } from '../../src/process/batcher.js';

const tick = () => new Promise((r) => setImmediate(r));

describe('natural batching', () => {
  it('runs the first item alone, then everything that arrived meanwhile as one batch', async () => {
    const batches: number[][] = [];
    let release: () => void = () => undefined;
    const batcher = createBatcher<number, string>(
      async (items) => {
        batches.push([...items]);
        if (batches.length === 1) await new Promise<void>((r) => (release = r));
        return items.map((i) => `#${i}`);
      },
      { maxBatch: 100 },
    );
    const first = batcher.add(0);
    await tick();
    const rest = [1, 2, 3, 4].map((i) => batcher.add(i));
    assert.equal(batcher.pending(), 5);
    release();
    assert.deepEqual(await Promise.all([first, ...rest]), ['#0', '#1', '#2', '#3', '#4']);
    assert.deepEqual(batches, [[0], [1, 2, 3, 4]]);
    await batcher.drain();
    assert.equal(batcher.pending(), 0);
  });

  it('never puts more than maxBatch in a batch, nor runs more than maxInFlight at once', async () => {
    let running = 0;
    let most = 0;
    const sizes: number[] = [];
    const batcher = createBatcher<number, number>(
      async (items) => {
        running++;
        most = Math.max(most, running);
        sizes.push(items.length);
        await new Promise((r) => setTimeout(r, 5));
        running--;
        return items.map((i) => i * 2);
      },
      { maxBatch: 3, maxInFlight: 2 },
    );
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => batcher.add(i)));
    assert.deepEqual(
      results,
      Array.from({ length: 20 }, (_, i) => i * 2),
    );
    assert.ok(
      sizes.every((n) => n <= 3),
      `sizes ${sizes}`,
    );
    assert.equal(most, 2);
  });

  it('rejects the items of a failing batch only, and goes on with the next', async () => {
    let calls = 0;
    const batcher = createBatcher<string, string>(
      async (items) => {
        calls++;
        if (items.includes('bad')) throw new Error('batch failed');
        return items;
      },
      { maxBatch: 2 },
    );
    const answers = await Promise.allSettled(['a', 'bad', 'c', 'd'].map((i) => batcher.add(i)));
    assert.deepEqual(
      answers.map((a) => a.status),
      ['fulfilled', 'rejected', 'rejected', 'fulfilled'],
    );
    assert.ok(calls >= 3);
  });

  it('with sameTurn, what is added in the same turn goes as one batch (without it, the first goes alone)', async () => {
    for (const sameTurn of [true, false]) {
      const batches: number[][] = [];
      const batcher = createBatcher<number, number>(
        async (items) => {
          batches.push([...items]);
          return items;
        },
        { maxBatch: 10, sameTurn },
      );
      await Promise.all([1, 2, 3].map((i) => batcher.add(i)));
      assert.deepEqual(batches, sameTurn ? [[1, 2, 3]] : [[1], [2, 3]]);
    }
  });

  it('refuses a run that answers the wrong number of results', async () => {
    const batcher = createBatcher<number, number>(async () => [1], { maxBatch: 10 });
    const answers = await Promise.allSettled([batcher.add(1), batcher.add(2), batcher.add(3)]);
    assert.ok(answers.some((a) => a.status === 'rejected'));
  });
});
