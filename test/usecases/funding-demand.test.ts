// The keeper's measure of demand: outputs used per second from the pool's level at each look,
// a step up seen within a look, a lull forgotten only after the long window, and the mark and
// split it calls for kept within the operator's bounds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  createDemandMeter,
  demandFor,
  LEAD_SECONDS,
  SPLIT_SECONDS,
} from '../../src/usecases/funding/funding-demand.js';

const bounds = { lowWater: 100, lowWaterMax: 5000, splitMin: 470, splitMax: 5000 };

test('a steady rate is measured as such, refills included', () => {
  const meter = createDemandMeter();
  let level = 1000;
  for (let t = 0; t <= 20_000; t += 500) {
    let added = 0;
    if (level < 300) {
      level += 1500;
      added = 1500;
    }
    meter.observe(t, level, added);
    level -= 12.5; // 25 a second
  }
  assert.ok(Math.abs(meter.perSecond(20_000) - 25) < 1, `measured ${meter.perSecond(20_000)}`);
});

test('a step from 0 to a rate shows at the first look after it, and a lull lowers it only slowly', () => {
  const meter = createDemandMeter();
  for (let t = 0; t <= 10_000; t += 500) meter.observe(t, 470, 0);
  assert.equal(meter.perSecond(10_000), 0);
  meter.observe(10_500, 470 - 13, 0); // 26 a second for half a second
  assert.ok(meter.perSecond(10_500) >= 8, 'the short window sees the step at once');
  meter.observe(11_000, 470 - 26, 0);
  meter.observe(11_500, 470 - 39, 0);
  const stepped = meter.perSecond(11_500);
  assert.ok(stepped >= 12, `measured ${stepped}`);
  for (let t = 12_000; t <= 16_000; t += 500) meter.observe(t, 431, 0);
  assert.ok(meter.perSecond(16_000) > 0, 'the long window still remembers the burst');
  for (let t = 16_500; t <= 30_000; t += 500) meter.observe(t, 431, 0);
  assert.equal(meter.perSecond(30_000), 0, 'forgotten after the long window');
});

test('the mark and the split follow the rate within their bounds', () => {
  assert.deepEqual(demandFor(0, bounds), { perSecond: 0, lowWater: 100, splitOutputs: 470 });
  const at25 = demandFor(25, bounds);
  assert.equal(at25.lowWater, 25 * LEAD_SECONDS);
  assert.equal(at25.splitOutputs, 25 * SPLIT_SECONDS);
  assert.deepEqual(demandFor(10_000, bounds), { perSecond: 10_000, lowWater: 5000, splitOutputs: 5000 });
});
