// The planner of a ticket's verdicts: the same statuses, events and record change as applying
// them one by one, for the sequences a batch can hold (a tick's pushes, a reorg's two pushes).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TICKET_STATUSES } from '../../src/domain/ticket-state.js';
import type { TxStatus } from '../../src/ledger/port.js';
import {
  failAfter,
  type LedgerView,
  mayTouchRecord,
  planVerdicts,
  type RecordNow,
} from '../../src/usecases/track/verdict-plan.js';

const A = 'aa'.repeat(32);
const B = 'bb'.repeat(32);
const mined = (hash: string, height = 10): TxStatus => ({
  kind: 'mined',
  blockHash: hash,
  height,
  index: 3,
  blockTime: 100,
  merklePath: '00',
});
const v = (status: TxStatus, extra: Partial<LedgerView> = {}): LedgerView => ({ status, ...extra });
const moves = (plan: ReturnType<typeof planVerdicts>) =>
  plan.steps.map((s) => `${s.from}>${s.to}${s.first ? '*' : ''}`);

describe('planVerdicts', () => {
  it('accepted then mined in one batch: SUCCESS and MINED (both first), inputs released, record mined', () => {
    const plan = planVerdicts(
      { status: 'BROADCASTING', firstMined: true, record: { state: 'unconfirmed', blkHash: '' } },
      [v({ kind: 'mempool' }), v(mined(A), { tipHeight: 10 })],
      6,
    );
    assert.deepEqual(moves(plan), ['BROADCASTING>SUCCESS*', 'SUCCESS>MINED*']);
    assert.equal(plan.release, true);
    assert.equal(plan.watch, true);
    assert.deepEqual(plan.record, { kind: 'mined', block: { height: 10, idx: 3, hash: A, time: 100 } });
  });

  it('a reorg seen in one batch (out, then in another block): two events, one record change', () => {
    const plan = planVerdicts(
      { status: 'MINED', firstMined: false, record: { state: 'mined', blkHash: A } },
      [v({ kind: 'mempool' }), v(mined(B, 11))],
      6,
    );
    assert.deepEqual(moves(plan), ['MINED>SUCCESS', 'SUCCESS>MINED']);
    assert.deepEqual(plan.record, { kind: 'mined', block: { height: 11, idx: 3, hash: B, time: 100 } });
  });

  it('out and back into the same block: the events, and no record change', () => {
    const plan = planVerdicts(
      { status: 'MINED', firstMined: false, record: { state: 'mined', blkHash: A } },
      [v({ kind: 'mempool' }), v(mined(A))],
      6,
    );
    assert.equal(plan.steps.length, 2);
    assert.equal(plan.record, null);
  });

  it("a broadcast's stale mempool leaves a MINED ticket untouched", () => {
    const plan = planVerdicts(
      { status: 'MINED', firstMined: false, record: { state: 'mined', blkHash: A } },
      [v({ kind: 'mempool' }, { fromBroadcast: true })],
      6,
    );
    assert.deepEqual(
      { touched: plan.touched, steps: plan.steps.length, record: plan.record },
      {
        touched: false,
        steps: 0,
        record: null,
      },
    );
  });

  it("a sweep's mempool from a look begun before the block leaves a MINED ticket untouched", () => {
    const now = { status: 'MINED', firstMined: false, record: { state: 'mined', blkHash: A } } as const;
    const stale = planVerdicts(now, [v({ kind: 'mempool' }, { seenAs: 'SUCCESS' })], 6);
    assert.deepEqual(
      { touched: stale.touched, steps: stale.steps.length, record: stale.record },
      {
        touched: false,
        steps: 0,
        record: null,
      },
    );
    assert.equal(mayTouchRecord('MINED', [v({ kind: 'mempool' }, { seenAs: 'SUCCESS' })]), false);
    // A look at the ticket while MINED that finds it back in the mempool is a reorg.
    const reorg = planVerdicts(now, [v({ kind: 'mempool' }, { seenAs: 'MINED' })], 6);
    assert.deepEqual(moves(reorg), ['MINED>SUCCESS']);
  });

  it('mined deep enough is final; the same block again changes no record', () => {
    const plan = planVerdicts(
      { status: 'MINED', firstMined: false, record: { state: 'mined', blkHash: A } },
      [v(mined(A, 10), { tipHeight: 15 })],
      6,
    );
    assert.deepEqual([plan.touched, plan.watch, plan.record, plan.steps.length], [true, false, null, 0]);
  });

  it('rejected fails it (through SUCCESS from MINED, at a look at it as MINED), and nothing after a failure counts', () => {
    const plan = planVerdicts(
      { status: 'MINED', firstMined: false, record: { state: 'mined', blkHash: A } },
      [v({ kind: 'rejected', reason: 'gone' }, { seenAs: 'MINED' }), v({ kind: 'mempool' })],
      6,
    );
    assert.deepEqual(moves(plan), ['MINED>SUCCESS', 'SUCCESS>FAILED']);
    assert.equal(plan.failure, 'gone');
    assert.equal(plan.watch, false);
  });

  it("a push's or a broadcast's rejection of a MINED ticket does not fail it: it is looked at again", () => {
    for (const extra of [{}, { fromBroadcast: true }, { seenAs: 'SUCCESS' as const }]) {
      const plan = planVerdicts(
        { status: 'MINED', firstMined: false, record: { state: 'mined', blkHash: A } },
        [v(mined(A), { tipHeight: 20 }), v({ kind: 'rejected', reason: 'stale callback' }, extra)],
        6,
      );
      assert.deepEqual(
        [plan.status, plan.failure, plan.steps.length, plan.touched, plan.watch, plan.minedIn, plan.record],
        ['MINED', null, 0, true, true, null, null],
        JSON.stringify(extra),
      );
    }
    // Rejected before it was mined, then mined (in the same batch): the block stands.
    const minedAfter = planVerdicts(
      { status: 'SUCCESS', firstMined: true, record: { state: 'unconfirmed', blkHash: '' } },
      [v({ kind: 'mempool' }), v(mined(B), { tipHeight: 10 }), v({ kind: 'rejected', reason: 'late' })],
      6,
    );
    assert.deepEqual([minedAfter.status, minedAfter.failure], ['MINED', null]);
  });

  it('double-spend and unknown only reschedule', () => {
    const plan = planVerdicts(
      { status: 'SUCCESS', firstMined: true, record: { state: 'unconfirmed', blkHash: '' } },
      [v({ kind: 'double-spend', competingTxids: [A] })],
      6,
    );
    assert.deepEqual([plan.touched, plan.watch, plan.steps.length, plan.failure], [true, true, 0, null]);
  });

  it('in the mempool it waits for a block; the block it ends in gets a row, watched or final (docs/adr/0008)', () => {
    const start = { status: 'BROADCASTING' as const, firstMined: true, record: null };
    const waiting = planVerdicts(start, [v({ kind: 'mempool' })], 6);
    assert.deepEqual([waiting.waitsForBlock, waiting.minedIn, waiting.watch], [true, null, true]);
    const inBlock = planVerdicts(start, [v({ kind: 'mempool' }), v(mined(A, 10), { tipHeight: 10 })], 6);
    assert.equal(inBlock.waitsForBlock, false);
    assert.deepEqual([inBlock.minedIn, inBlock.watch], [{ hash: A, height: 10 }, true], 'watched through A');
    const final = planVerdicts(start, [v(mined(A, 10), { tipHeight: 20 })], 6);
    assert.deepEqual(
      [final.minedIn, final.watch],
      [{ hash: A, height: 10 }, false],
      'final: a row, not watched',
    );
    const reorged = planVerdicts(
      { status: 'MINED', firstMined: false, record: { state: 'mined', blkHash: A } },
      [v({ kind: 'mempool' })],
      6,
    );
    assert.deepEqual([reorged.waitsForBlock, reorged.minedIn], [true, null], 'out of its block: waits again');
    for (const kind of ['double-spend', 'unknown'] as const) {
      const status: TxStatus = kind === 'unknown' ? { kind } : { kind, competingTxids: [] };
      const plan = planVerdicts(start, [v({ kind: 'mempool' }), v(status)], 6);
      assert.equal(plan.waitsForBlock, false, `${kind}: the next poll, not a block`);
    }
    const failed = failAfter(waiting, 'parent failed');
    assert.deepEqual([failed.waitsForBlock, failed.minedIn], [false, null]);
  });

  it('failAfter: a spender of a failed transaction ends FAILED after its own verdicts', () => {
    const own = planVerdicts(
      { status: 'BROADCASTING', firstMined: true, record: { state: 'unconfirmed', blkHash: '' } },
      [v({ kind: 'mempool' })],
      6,
    );
    const plan = failAfter(own, 'parent failed');
    assert.deepEqual(moves(plan), ['BROADCASTING>SUCCESS*', 'SUCCESS>FAILED']);
    assert.equal(plan.release, true);
    assert.equal(plan.failure, 'parent failed');
  });
});

describe('mayTouchRecord', () => {
  const views: LedgerView[] = [
    v({ kind: 'mempool' }),
    v({ kind: 'mempool' }, { fromBroadcast: true }),
    v({ kind: 'unknown' }),
    v({ kind: 'double-spend', competingTxids: [B] }),
    v(mined(A), { tipHeight: 10 }),
    v(mined(B, 11), { tipHeight: 20 }),
    v({ kind: 'rejected', reason: 'bad' }),
  ];
  const records: (RecordNow | null)[] = [
    null,
    { state: 'unconfirmed', blkHash: '' },
    { state: 'mined', blkHash: A },
    { state: 'failed', blkHash: '' },
  ];
  const sequences: LedgerView[][] = [[]];
  for (let length = 1; length <= 3; length++)
    for (const seq of sequences.filter((q) => q.length === length - 1))
      for (const view of views) sequences.push([...seq, view]);

  it('when false, the record changes nothing: the same plan with any record as with none', () => {
    let untouched = 0;
    for (const status of TICKET_STATUSES)
      for (const firstMined of [true, false])
        for (const seq of sequences) {
          if (mayTouchRecord(status, seq)) continue;
          untouched++;
          const without = planVerdicts({ status, firstMined, record: null }, seq, 6);
          for (const record of records)
            assert.deepEqual(
              planVerdicts({ status, firstMined, record }, seq, 6),
              without,
              `${status} ${JSON.stringify(seq)}`,
            );
        }
    assert.ok(untouched > 100, `${untouched} sequences plan without the record`);
  });

  it("a broadcast's answer to a new ticket needs no record; a block, a rejection and a reorg do", () => {
    assert.equal(mayTouchRecord('BROADCASTING', [v({ kind: 'mempool' }, { fromBroadcast: true })]), false);
    assert.equal(mayTouchRecord('SUCCESS', [v({ kind: 'mempool' })]), false);
    assert.equal(mayTouchRecord('BROADCASTING', [v(mined(A))]), true);
    assert.equal(mayTouchRecord('SUCCESS', [v({ kind: 'rejected', reason: 'x' })]), true);
    assert.equal(mayTouchRecord('MINED', [v({ kind: 'mempool' })]), true);
    assert.equal(mayTouchRecord('MINED', [v({ kind: 'mempool' }, { fromBroadcast: true })]), false);
  });
});
