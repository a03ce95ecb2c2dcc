// The fee rate cache in front of the ledger: one ask per TTL; the last rate served while the
// ledger is unavailable, for a bounded time; other errors never hidden.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cachedFeeRate } from '../../src/ledger/cached-fee-rate.js';
import { LedgerUnavailableError } from '../../src/ledger/port.js';

function fakeLedger() {
  const state = { asked: 0, rate: 50n, fail: null as Error | null };
  return {
    state,
    ledger: {
      async feePolicy() {
        state.asked++;
        if (state.fail !== null) throw state.fail;
        return { satoshisPerKb: state.rate };
      },
    },
  };
}

describe('cachedFeeRate', () => {
  it('asks the ledger once per TTL', async () => {
    let now = 0;
    const { state, ledger } = fakeLedger();
    const rate = cachedFeeRate(ledger, 1000, 5000, () => now);
    assert.equal(await rate(), 50n);
    state.rate = 70n;
    now = 900;
    assert.equal(await rate(), 50n);
    now = 1001;
    assert.equal(await rate(), 70n);
    assert.equal(state.asked, 2);
  });

  it('serves the last rate while the ledger is unavailable, then lets the error through', async () => {
    let now = 0;
    const { state, ledger } = fakeLedger();
    const rate = cachedFeeRate(ledger, 1000, 5000, () => now);
    assert.equal(await rate(), 50n);
    state.fail = new LedgerUnavailableError('ARC down');
    now = 3000;
    assert.equal(await rate(), 50n, 'stale but served');
    now = 6000;
    assert.equal(await rate(), 50n, 'at the end of the window');
    now = 6001;
    await assert.rejects(rate(), LedgerUnavailableError);
    state.fail = null;
    state.rate = 80n;
    assert.equal(await rate(), 80n, 'fresh once the ledger answers');
  });

  it('lets a first failure and any other error through', async () => {
    let now = 0;
    const { state, ledger } = fakeLedger();
    const rate = cachedFeeRate(ledger, 1000, 5000, () => now);
    state.fail = new LedgerUnavailableError('ARC down');
    await assert.rejects(rate(), LedgerUnavailableError);
    state.fail = null;
    assert.equal(await rate(), 50n);
    state.fail = new TypeError('bug');
    now = 2000;
    await assert.rejects(rate(), TypeError);
  });
});
