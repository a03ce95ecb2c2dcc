// The writer's wire: a submission survives the trip as JSON whole (bytes, bigints beyond 2^53,
// times, nulls), verdicts and ledger updates decode as sent, and a malformed field is refused by
// name rather than written half-read.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Submission } from '../../src/store/submissions/submission-writes.js';
import {
  decodeLedgerUpdate,
  decodeSubmission,
  decodeVerdict,
  encodeSubmission,
  WireError,
} from '../../src/writer/writer-wire.js';

const at = new Date('2026-11-26T10:00:00.123Z');
const submission: Submission = {
  ticketId: '0192b3c4-0000-7000-8000-000000000001',
  txid: 'aa'.repeat(32),
  submittedTxid: 'bb'.repeat(32),
  rawTx: new Uint8Array([1, 0, 0, 0, 255, 0]),
  inputs: [
    { txid: 'cc'.repeat(32), vout: 0 },
    { txid: 'dd'.repeat(32), vout: 7 },
  ],
  funding: { txid: 'ee'.repeat(32), vout: 3 },
  leaseOwner: 'lease-1',
  outputs: [
    {
      vout: 0,
      owner: '1BoatSLRHtKNngkdXEeobR76b53LETtpyT',
      amount: 2n ** 64n + 1n,
      op: 'transfer',
      script: new Uint8Array([0x76, 0xa9]),
      satoshis: 1n,
    },
  ],
  senders: ['s1'],
  receivers: ['r1', 'r2'],
  callbackUrl: 'https://wallet.example/cb',
  callbackSecretEnc: new Uint8Array([9, 8, 7]),
  apiKeyId: null,
  now: at,
  firstCheckAt: new Date(at.getTime() + 5000),
};

const roundTrip = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

describe("the writer's wire", () => {
  it('a submission comes back equal, through JSON text', () => {
    assert.deepEqual(decodeSubmission(roundTrip(encodeSubmission(submission))), submission);
    const plain = { ...submission, callbackUrl: null, callbackSecretEnc: null, apiKeyId: 'key-1' };
    assert.deepEqual(decodeSubmission(roundTrip(encodeSubmission(plain))), plain);
    // The request that submitted it travels too (its ticket's log records carry it).
    const asked = { ...submission, requestId: 'req-7f3a' };
    assert.deepEqual(decodeSubmission(roundTrip(encodeSubmission(asked))), asked);
  });

  it('a malformed field is refused by name', () => {
    const sent = roundTrip(encodeSubmission(submission)) as Record<string, unknown>;
    const refused = (change: Record<string, unknown>, field: RegExp) =>
      assert.throws(
        () => decodeSubmission({ ...sent, ...change }),
        (err: unknown) => {
          assert.ok(err instanceof WireError);
          assert.match(err.message, field);
          return true;
        },
      );
    refused({ rawTx: 'xyz' }, /^rawTx: not hex/);
    refused({ ticketId: 7 }, /^ticketId/);
    refused({ now: 'yesterday' }, /^now: not a time/);
    refused({ inputs: [{ txid: 'cc', vout: -1 }] }, /^inputs\[0\]\.vout/);
    refused({ outputs: [{ ...(sent.outputs as object[])[0], amount: 5 }] }, /amount: not a string/);
    refused({ outputs: [{ ...(sent.outputs as object[])[0], amount: '-5' }] }, /amount: not a decimal/);
    refused({ outputs: [{ ...(sent.outputs as object[])[0], op: 'mint' }] }, /op: unknown/);
    refused({ leaseOwner: undefined }, /^leaseOwner/);
    assert.throws(() => decodeSubmission([]), WireError);
  });

  it('verdicts decode as sent; an unknown one is refused', () => {
    const verdicts = [
      { kind: 'created' },
      { kind: 'duplicate', ticketId: 't' },
      { kind: 'conflict', code: 'INPUT_SPENT', detail: 'outpoint x_0 already spent' },
      { kind: 'conflict', code: 'OUTPUT_SEIZED', detail: 'x_1 was seized' },
      { kind: 'funding-lost' },
    ];
    assert.deepEqual(roundTrip(verdicts.map((v) => decodeVerdict(roundTrip(v)))), verdicts);
    assert.throws(() => decodeVerdict({ kind: 'won' }), WireError);
    assert.throws(() => decodeVerdict({ kind: 'conflict', code: 'NOPE', detail: '' }), WireError);
  });

  it('ledger updates decode as sent; a mined one needs its block', () => {
    const updates = [
      { txid: 'a', view: { status: { kind: 'mempool' }, fromBroadcast: true } },
      {
        txid: 'b',
        view: {
          status: { kind: 'mined', blockHash: 'ff', height: 10, index: 1, blockTime: 5, merklePath: '00' },
          tipHeight: 12,
        },
      },
      { txid: 'c', view: { status: { kind: 'rejected', reason: 'no', arcCode: 461 } } },
    ];
    assert.deepEqual(
      updates.map((u) => decodeLedgerUpdate(roundTrip(u))),
      updates,
    );
    assert.throws(() => decodeLedgerUpdate({ txid: 'a', view: { status: { kind: 'lost' } } }), WireError);
    assert.throws(
      () => decodeLedgerUpdate({ txid: 'a', view: { status: { kind: 'mined', height: 1, index: 0 } } }),
      /blockHash/,
    );
    assert.throws(
      () => decodeLedgerUpdate({ txid: 'a', view: { status: { kind: 'rejected', reason: 5 } } }),
      /reason/,
    );
    assert.throws(
      () =>
        decodeLedgerUpdate({ txid: 'a', view: { status: { kind: 'double-spend', competingTxids: [1] } } }),
      /competingTxids/,
    );
  });
});
