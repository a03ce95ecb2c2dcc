// The console charts' time axis (src/http/console/static/charts.js, browser code): every chart shows at least two time ticks, also over a span that the round step
// chosen for it would mark only once (a second's data; 150 s at a 120 s step). The browser test
// (test/browser/console-charts.test.ts) failed on a chart of a single 1-second bucket.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';

const SCRIPT_CHARTS = readFileSync(
  new URL('../../src/http/console/static/charts.js', import.meta.url),
  'utf8',
);

type Tick = { t: number; label: string };
const timeTicks = new Function(`${SCRIPT_CHARTS}\nreturn timeTicks;`)() as (
  t0: number,
  t1: number,
  count: number,
) => Tick[];

it('marks two ticks where the chosen step would fall once', () => {
  assert.deepEqual(
    timeTicks(1_764_000_000, 1_764_000_001, 5).map((t) => t.t),
    [1_764_000_000, 1_764_000_001],
  );
  // 150 s at a count of 2 chooses 120 s steps: one round time in [10, 160]; 60 s steps give two.
  assert.deepEqual(
    timeTicks(10, 160, 2).map((t) => t.t),
    [60, 120],
  );
});

it('gives every whole-second span of 1 s to a week at least two ticks, inside it, in order, at a round step', () => {
  for (const span of [1, 2, 3, 7, 59, 61, 119, 150, 599, 3601, 86_399, 86_401, 604_800]) {
    for (const start of [1_764_000_000, 1_764_000_017, 1_764_003_599]) {
      for (const count of [2, 3, 5, 9]) {
        const ticks = timeTicks(start, start + span, count);
        const where = `span ${span} from ${start}, ${count} wanted`;
        assert.ok(ticks.length >= 2, where);
        assert.ok(ticks[0]!.t >= start && ticks.at(-1)!.t <= start + span, where);
        const step = ticks[1]!.t - ticks[0]!.t;
        for (const [i, tick] of ticks.entries()) {
          assert.equal(tick.t % step, 0, where);
          if (i > 0) assert.equal(tick.t - ticks[i - 1]!.t, step, where);
          assert.match(tick.label, /^(\d\d-\d\d )?\d\d:\d\d(:\d\d)?$|^\d\d-\d\d$/, where);
        }
      }
    }
  }
});
