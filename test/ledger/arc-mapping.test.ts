// Every ARC status mapped, and what ARC may answer that the devnet never does (a 200 carrying
// REJECTED, DOUBLE_SPEND_ATTEMPTED or a status name nobody knows), through a stub fetch.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MerklePath } from '@bsv/sdk';
import { createArcLedger } from '../../src/ledger/arc/arc-ledger.js';
import { ARC_STATUS_RANK, type ArcTxStatus, txStatusFromArc } from '../../src/ledger/arc/arc-status.js';

const TXID = 'aa'.repeat(32);
const SIBLING = 'bb'.repeat(32);
const BLOCK = `${'00'.repeat(31)}11`;
const BUMP = new MerklePath(812_000, [
  [
    { offset: 2, hash: TXID, txid: true },
    { offset: 3, hash: SIBLING },
  ],
  [{ offset: 0, hash: 'cc'.repeat(32) }],
]).toHex();

describe('ARC status mapping', () => {
  const expected: Record<ArcTxStatus, string> = {
    UNKNOWN: 'unknown',
    QUEUED: 'unknown',
    RECEIVED: 'unknown',
    STORED: 'unknown',
    ANNOUNCED_TO_NETWORK: 'mempool',
    REQUESTED_BY_NETWORK: 'mempool',
    SENT_TO_NETWORK: 'mempool',
    ACCEPTED_BY_NETWORK: 'mempool',
    SEEN_IN_ORPHAN_MEMPOOL: 'unknown',
    SEEN_ON_NETWORK: 'mempool',
    DOUBLE_SPEND_ATTEMPTED: 'double-spend',
    REJECTED: 'rejected',
    MINED_IN_STALE_BLOCK: 'mempool',
    MINED: 'mined',
  };
  for (const name of Object.keys(ARC_STATUS_RANK) as ArcTxStatus[]) {
    it(`maps ${name} to ${expected[name]}`, () => {
      const fields = {
        txStatus: name,
        blockHash: BLOCK,
        blockHeight: 812_000,
        merklePath: BUMP,
        competingTxs: [SIBLING],
      };
      assert.equal(txStatusFromArc(TXID, fields, 1_700_000_000)?.kind, expected[name]);
    });
  }

  it('reads the index in the block from the BUMP', () => {
    const status = txStatusFromArc(
      TXID,
      { txStatus: 'MINED', blockHash: BLOCK, blockHeight: 812_000, merklePath: BUMP },
      5,
    );
    assert.deepEqual(status, {
      kind: 'mined',
      blockHash: BLOCK,
      height: 812_000,
      index: 2,
      blockTime: 5,
      merklePath: BUMP,
    });
  });

  it('keeps MINED without a usable BUMP in the mempool until one comes', () => {
    for (const merklePath of [
      undefined,
      '',
      'zz',
      MerklePath.fromCoinbaseTxidAndHeight(SIBLING, 1).toHex(),
    ]) {
      const status = txStatusFromArc(
        TXID,
        { txStatus: 'MINED', blockHash: BLOCK, blockHeight: 1, merklePath },
        0,
      );
      assert.deepEqual(status, { kind: 'mempool' });
    }
  });

  it('answers null for a status that is not ARC s', () => {
    assert.equal(txStatusFromArc(TXID, { txStatus: 'MAYBE' }, 0), null);
    assert.equal(txStatusFromArc(TXID, {}, 0), null);
  });
});

function stubArc(
  answer: (url: string, init?: RequestInit) => { status: number; body: unknown },
): typeof fetch {
  return async (input, init) => {
    const { status, body } = answer(String(input), init);
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  };
}

const RAW = Uint8Array.of(1, 0, 0, 0, 0, 0, 0, 0, 0, 0);

describe('arc adapter answers', () => {
  it('turns a 200 carrying REJECTED into a refusal, with the number ARC put in extraInfo', async () => {
    const ledger = createArcLedger({
      url: 'http://arc.invalid',
      fetch: stubArc(() => ({
        status: 200,
        body: { txStatus: 'REJECTED', extraInfo: 'arc error 465: fee too low' },
      })),
    });
    const r = await ledger.broadcast(RAW);
    assert.deepEqual(r.ok ? null : [r.arcCode, r.reason, r.retryable], [
      465,
      'arc error 465: fee too low',
      false,
    ]);
    await ledger.close();
  });

  it('answers a 200 DOUBLE_SPEND_ATTEMPTED as accepted for now, with the competing txids', async () => {
    const ledger = createArcLedger({
      url: 'http://arc.invalid',
      fetch: stubArc(() => ({
        status: 200,
        body: { txStatus: 'DOUBLE_SPEND_ATTEMPTED', competingTxs: [SIBLING] },
      })),
    });
    const r = await ledger.broadcast(RAW);
    assert.deepEqual(r.ok ? r.status : null, { kind: 'double-spend', competingTxids: [SIBLING] });
    await ledger.close();
  });

  it('answers a 200 with an unknown status name as unknown (polling tells more later)', async () => {
    const ledger = createArcLedger({
      url: 'http://arc.invalid',
      fetch: stubArc(() => ({ status: 200, body: { txStatus: 'SOMETHING_NEW' } })),
    });
    const r = await ledger.broadcast(RAW);
    assert.deepEqual(r.ok ? r.status : null, { kind: 'unknown' });
    assert.deepEqual(await ledger.status(TXID), { kind: 'unknown' });
    await ledger.close();
  });

  it('marks refusals that may pass later as retryable', async () => {
    for (const [code, retryable] of [
      [460, true],
      [462, true],
      [461, false],
      [465, false],
      [466, false],
    ] as const) {
      const ledger = createArcLedger({
        url: 'http://arc.invalid',
        fetch: stubArc(() => ({
          status: code,
          body: { status: code, title: 't', detail: 'd', extraInfo: `e${code}` },
        })),
      });
      const r = await ledger.broadcast(RAW);
      assert.deepEqual(r.ok ? null : [r.arcCode, r.reason, r.retryable], [code, `e${code}`, retryable]);
      await ledger.close();
    }
  });

  it('rounds the policy fee up to satoshis per 1000 bytes and reuses it for a while', async () => {
    let calls = 0;
    let now = 0;
    const ledger = createArcLedger({
      url: 'http://arc.invalid',
      now: () => now,
      fetch: stubArc(() => {
        calls++;
        return { status: 200, body: { policy: { miningFee: { satoshis: 1, bytes: 3 } } } };
      }),
    });
    assert.deepEqual(await ledger.feePolicy(), { satoshisPerKb: 334n });
    now = 30_000;
    await ledger.feePolicy();
    assert.equal(calls, 1);
    now = 61_000;
    await ledger.feePolicy();
    assert.equal(calls, 2);
    await ledger.close();
  });

  it('ignores a callback older than what it already told subscribers', async () => {
    const ledger = createArcLedger({
      url: 'http://arc.invalid',
      callbackToken: 't',
      fetch: stubArc(() => ({ status: 404, body: {} })),
    });
    const seen: string[] = [];
    ledger.subscribe((_, s) => seen.push(s.kind));
    const mined = { txid: TXID, txStatus: 'MINED', blockHash: BLOCK, blockHeight: 812_000, merklePath: BUMP };
    await ledger.handleArcCallback({ ...mined, timestamp: '2026-01-01T00:00:10.000000001Z' }, 'Bearer t');
    const late = { txid: TXID, txStatus: 'SEEN_ON_NETWORK', timestamp: '2026-01-01T00:00:05Z' };
    assert.deepEqual(await ledger.handleArcCallback({ count: 1, callbacks: [late] }, 'Bearer t'), {
      status: 200,
      accepted: 1,
      ignored: 0,
    });
    assert.deepEqual(seen, ['mined']);
    await ledger.close();
  });

  it('refuses every callback when no callback token is configured', async () => {
    const ledger = createArcLedger({
      url: 'http://arc.invalid',
      fetch: stubArc(() => ({ status: 404, body: {} })),
    });
    const result = await ledger.handleArcCallback({ txid: TXID, txStatus: 'MINED' }, 'Bearer anything');
    assert.equal(result.status, 401);
    await ledger.close();
  });
});
