// The history rules spelled out by hand: what the client's reading means, case by case.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  groupHistories,
  type HistoryConfig,
  type HistorySyncRecord,
  historyEntry,
  historyFor,
  historyGroups,
} from '../../src/domain/history.js';
import {
  buildTx,
  holder,
  opReturn,
  SANDBOX_APPROVER,
  SANDBOX_TOKEN_ID,
  tokenScript,
} from '../support/client-fixtures.js';

describe('history rules', () => {
  const [alice, bob, carol, fee] = ['alice', 'bob', 'carol', 'fee'].map(holder) as [
    ReturnType<typeof holder>,
    ReturnType<typeof holder>,
    ReturnType<typeof holder>,
    ReturnType<typeof holder>,
  ];
  const config: HistoryConfig = { tokenId: SANDBOX_TOKEN_ID, feeAddress: fee.address };
  const out = (who: { pkh: Uint8Array }, amt: string) => ({
    satoshis: 1n,
    script: tokenScript(SANDBOX_TOKEN_ID, amt, who.pkh, SANDBOX_APPROVER),
  });
  const record = (
    outputs: ReturnType<typeof out>[],
    senders: string[],
    height = 0,
    score = 1n,
  ): HistorySyncRecord => ({
    txid: `${score}`.padStart(64, '0'),
    rawtx: buildTx([{ txid: 'dd'.repeat(32), vout: 0 }], outputs),
    senders,
    receivers: [],
    height,
    score,
  });

  it('a send counts what left the first sender, net of change, with the fee apart', () => {
    const r = record(
      [out(bob, '700'), out(carol, '200'), out(fee, '100'), out(alice, '5000')],
      [alice.address],
      5,
    );
    const entry = historyEntry(r, alice.address, config)!;
    assert.equal(entry.type, 'send');
    assert.equal(entry.status, 'confirmed');
    assert.equal(entry.fee, 100n);
    assert.equal(entry.amount, 900n);
    assert.deepEqual(entry.counterparties, [
      { address: bob.address, amount: 700n },
      { address: carol.address, amount: 200n },
    ]);
  });

  it('a receive names the first sender; the fee is not the receiver`s', () => {
    const r = record([out(bob, '700'), out(fee, '100'), out(bob, '50')], [alice.address, carol.address]);
    const entry = historyEntry(r, bob.address, config)!;
    assert.equal(entry.type, 'receive');
    assert.equal(entry.status, 'unconfirmed');
    assert.equal(entry.fee, 0n);
    assert.deepEqual(entry.counterparties, [{ address: alice.address, amount: 750n }]);
  });

  it('an unrecognised output before a token output shifts the owners the client reads', () => {
    const rawtx = buildTx(
      [{ txid: 'dd'.repeat(32), vout: 0 }],
      [{ satoshis: 0n, script: opReturn('memo') }, out(bob, '700'), out(carol, '200')],
    );
    const entry = historyEntry({ ...record([], [alice.address]), rawtx }, alice.address, config)!;
    // output 1 (bob's) is read as owned by carol; output 2 by nobody known (undefined)
    assert.deepEqual(entry.counterparties, [
      { address: carol.address, amount: 700n },
      { address: undefined, amount: 200n },
    ]);
  });

  it('slices to the limit but takes nextScore from the last entry before slicing', () => {
    const records = [1n, 2n, 3n].map((score) => record([out(bob, '1')], [alice.address], 0, score));
    const answer = historyFor(alice.address, records, config, { limit: 2 });
    assert.deepEqual(
      answer.history.map((h) => h.score),
      [1n, 2n],
    );
    assert.equal(answer.nextScore, 3n);
    assert.equal(historyFor(carol.address, records, config, { fromScore: 7n }).nextScore, 7n);
  });

  it('groups multi-form parameters by (from, limit or 100, order), de-duplicating by txid', () => {
    const groups = historyGroups([
      { address: alice.address },
      { address: bob.address, order: 'desc' },
      { address: carol.address, limit: 100 },
    ]);
    assert.deepEqual(
      groups.map((g) => [g.addresses, g.selection]),
      [
        [[alice.address, carol.address], { from: 0n, limit: 100, order: 'asc' }],
        [[bob.address], { from: 0n, limit: 100, order: 'desc' }],
      ],
    );
    const r = record([out(bob, '1')], [alice.address]);
    const [first] = groupHistories(groups[0]!, [r, r], config);
    assert.equal(first!.history.length, 1);
    assert.equal(historyFor(alice.address, [r, r], config).history.length, 2);
  });
});
