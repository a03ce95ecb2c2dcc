// The writer's checks of the ledger updates an api process sent it (src/writer/update-check.ts):
// an accepted broadcast is written as sent; a verdict that settles or unwinds money is what the
// ledger says when the writer asks it, and nothing when the ledger knows nothing of it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TxStatus } from '../../src/ledger/port.js';
import { checkLedgerUpdates, UpdateRefused } from '../../src/writer/update-check.js';

const T = (n: number) => n.toString(16).padStart(64, '0');
const ledgerSaying = (answers: Record<string, TxStatus>) => ({
  asked: [] as string[],
  async status(txid: string): Promise<TxStatus> {
    this.asked.push(txid);
    return answers[txid] ?? { kind: 'unknown' };
  },
});

describe("the writer checks ledger updates against the ledger's own word", () => {
  it('writes an accepted broadcast as sent, without asking', async () => {
    const ledger = ledgerSaying({});
    const { write } = await checkLedgerUpdates(
      [{ txid: T(1), view: { status: { kind: 'mempool' }, tipHeight: 999_999, fromBroadcast: true } }],
      ledger,
    );
    assert.deepEqual(write, [{ txid: T(1), view: { status: { kind: 'mempool' }, fromBroadcast: true } }]);
    assert.deepEqual(ledger.asked, []);
  });

  it('a forged rejection of a transaction the ledger holds writes what the ledger says instead', async () => {
    const ledger = ledgerSaying({ [T(2)]: { kind: 'mempool' } });
    const { write, askedAgain } = await checkLedgerUpdates(
      [{ txid: T(2), view: { status: { kind: 'rejected', reason: 'forged' } } }],
      ledger,
    );
    assert.equal(askedAgain, 1);
    assert.deepEqual(write, [{ txid: T(2), view: { status: { kind: 'mempool' } } }]);
  });

  it('a forged block or double spend the ledger knows nothing of writes nothing', async () => {
    const ledger = ledgerSaying({});
    const { write, dropped } = await checkLedgerUpdates(
      [
        {
          txid: T(3),
          view: {
            status: { kind: 'mined', blockHash: T(9), height: 5, index: 1, blockTime: 1, merklePath: '' },
          },
        },
        { txid: T(4), view: { status: { kind: 'double-spend', competingTxids: [T(5)] } } },
      ],
      ledger,
    );
    assert.deepEqual(write, []);
    assert.equal(dropped, 2);
    assert.deepEqual(ledger.asked, [T(3), T(4)]);
  });

  it('refuses a txid that is not one', async () => {
    await assert.rejects(
      checkLedgerUpdates([{ txid: "x' OR 1=1", view: { status: { kind: 'mempool' } } }], ledgerSaying({})),
      UpdateRefused,
    );
  });
});
