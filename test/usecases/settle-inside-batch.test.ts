// Conflicts inside one submission batch are settled before the database sees it: the same
// transaction twice is written once (the later copies answer its ticket, or share its fate),
// and a transfer spending an input an earlier one in the batch spends is refused as locked.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Submission } from '../../src/store/submissions/submission-writes.js';
import { settleInsideBatch } from '../../src/usecases/submit/submission-committer.js';
import { aSubmission } from '../support/submission-fixture.js';

const sub = (ticketId: string, submittedTxid: string, inputs: string[]): Submission =>
  aSubmission({
    ticketId,
    txid: `final-${ticketId}`,
    submittedTxid,
    inputs: inputs.map((o) => ({ txid: o.split('_')[0]!, vout: Number(o.split('_')[1]) })),
    funding: { txid: 'f', vout: 0 },
  });

describe('settling a submission batch in memory', () => {
  const a = sub('t1', 'A', ['x_0']);
  const aAgain = sub('t2', 'A', ['x_0']);
  const rival = sub('t3', 'B', ['y_1', 'x_0']);
  const other = sub('t4', 'C', ['z_2']);

  it('sends each transaction once and no input twice to the database', () => {
    const { distinct } = settleInsideBatch([a, aAgain, rival, other]);
    assert.deepEqual(distinct, [a, other]);
  });

  it('answers copies with the first one ticket, and rivals with INPUT_LOCKED naming the input', () => {
    const { settle } = settleInsideBatch([a, aAgain, rival, other]);
    assert.deepEqual(settle([{ kind: 'created' }, { kind: 'created' }]), [
      { kind: 'created' },
      { kind: 'duplicate', ticketId: 't1' },
      {
        kind: 'conflict',
        code: 'INPUT_LOCKED',
        detail: 'outpoint x_0 was locked in a previous transaction attempt',
      },
      { kind: 'created' },
    ]);
  });

  it('gives copies the fate of the first one when it was not created', () => {
    const { settle } = settleInsideBatch([a, aAgain]);
    const spent = { kind: 'conflict', code: 'INPUT_SPENT', detail: 'outpoint x_0 already spent' } as const;
    assert.deepEqual(settle([spent]), [spent, spent]);
    assert.deepEqual(settleInsideBatch([a, aAgain]).settle([{ kind: 'duplicate', ticketId: 'old' }]), [
      { kind: 'duplicate', ticketId: 'old' },
      { kind: 'duplicate', ticketId: 'old' },
    ]);
  });
});
