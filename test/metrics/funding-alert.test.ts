import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fundingAlert } from '../../src/metrics/funding-alert.js';

function world(available: number) {
  const state = { available, t: 0, warnings: [] as string[] };
  const check = fundingAlert({
    db: { query: async <R>() => [{ n: String(state.available) }] as R[] },
    log: { warn: (_obj, msg) => state.warnings.push(msg) },
    address: '1Funding',
    lowWater: 100,
    everyMs: 60_000,
    now: () => state.t,
  });
  return { state, check };
}

describe('funding pool alert', () => {
  it('stays quiet while the pool is at or above the threshold', async () => {
    const { state, check } = world(100);
    assert.equal(await check(), false);
    assert.deepEqual(state.warnings, []);
  });

  it('warns with the address to pay, at most once per interval', async () => {
    const { state, check } = world(3);
    assert.equal(await check(), true);
    assert.match(state.warnings[0]!, /3 outputs.*pay satoshis to 1Funding/);
    state.t = 59_999;
    assert.equal(await check(), false);
    state.t = 60_000;
    assert.equal(await check(), true);
    state.available = 500;
    state.t = 200_000;
    assert.equal(await check(), false);
    assert.equal(state.warnings.length, 2);
  });
});
