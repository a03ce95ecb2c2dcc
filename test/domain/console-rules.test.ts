// The console's pure rules: what a search query is, the funding pool's outlook and level,
// and the time buckets of its charts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fundingOutlook, typicalTransferFee } from '../../src/domain/funding-outlook.js';
import { parseSearchQuery } from '../../src/domain/search-query.js';
import { timeBuckets } from '../../src/domain/time-buckets.js';
import { party } from '../support/token-world.js';

const TXID = 'AB'.repeat(32);

describe('search query', () => {
  it('recognises a txid, an outpoint in both forms, a ticket ID and an address', () => {
    assert.deepEqual(parseSearchQuery(TXID), { kind: 'txid', txid: TXID.toLowerCase() });
    assert.deepEqual(parseSearchQuery(` ${TXID}:7 `), {
      kind: 'outpoint',
      txid: TXID.toLowerCase(),
      vout: 7,
    });
    assert.deepEqual(parseSearchQuery(`${TXID}_0`), { kind: 'outpoint', txid: TXID.toLowerCase(), vout: 0 });
    const id = '01938A4C-7D2E-7A00-8000-0123456789AB';
    assert.deepEqual(parseSearchQuery(id), { kind: 'ticket', id: id.toLowerCase() });
    const { address } = party('search');
    assert.deepEqual(parseSearchQuery(address), { kind: 'address', address });
  });

  it('refuses anything else', () => {
    for (const q of [
      '',
      'hello',
      TXID.slice(2),
      `${TXID}:`,
      `${TXID}:-1`,
      `${TXID}:2147483648`,
      `${TXID}/1`,
      '1BoatSLRHtKNngkdXEeobR76b53LETtpyX',
      '<script>alert(1)</script>',
    ]) {
      assert.equal(parseSearchQuery(q), null, q);
    }
  });
});

describe('funding outlook', () => {
  const facts = {
    usableOutputs: 200,
    availableOutputs: 200,
    reserveSatoshis: 3000n,
    smallestDenomination: 300n,
    lowWater: 100,
  };

  it('counts the usable outputs plus what the reserve splits into', () => {
    assert.deepEqual(fundingOutlook(facts), { transfersLeft: 210, fromReserve: 10, level: 'ok' });
  });

  it('is low under the low-water mark with a reserve, critical without one or under a quarter, empty at none', () => {
    assert.equal(fundingOutlook({ ...facts, usableOutputs: 99, availableOutputs: 99 }).level, 'low');
    assert.equal(
      fundingOutlook({ ...facts, usableOutputs: 99, availableOutputs: 99, reserveSatoshis: 0n }).level,
      'critical',
    );
    assert.equal(fundingOutlook({ ...facts, usableOutputs: 24, availableOutputs: 24 }).level, 'critical');
    assert.equal(fundingOutlook({ ...facts, usableOutputs: 0, availableOutputs: 5 }).level, 'empty');
  });

  it('prices a typical transfer at the fee rate, rounded up', () => {
    assert.equal(typicalTransferFee(1n), 2n);
    assert.equal(typicalTransferFee(100n), 150n);
  });
});

describe('time buckets', () => {
  it('covers start to end in at most the count, each at least a second', () => {
    assert.deepEqual(timeBuckets(1000, 1000, 60), { start: 1000, width: 1, count: 1 });
    assert.deepEqual(timeBuckets(1000.7, 1004.2, 60), { start: 1000, width: 1, count: 6 });
    const hour = timeBuckets(0, 3600, 60);
    assert.deepEqual(hour, { start: 0, width: 61, count: 60 });
    assert.ok(hour.start + hour.width * hour.count > 3600);
  });
});
