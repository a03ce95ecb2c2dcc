// readTransaction and the pure sites that read bytes through it: 9 bytes announcing 16 million
// inputs (or 15 announcing four billion) made @bsv/sdk's Transaction.fromBinary allocate until
// the process died of heap exhaustion. Now each is refused at once, as each site refuses bytes
// that do not parse. The parser tripwire (test/support/parser-tripwire.ts) fails a test whose
// code hands such bytes to the sdk, instead of letting it run the test runner out of memory.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Transaction, UnlockingScript } from '@bsv/sdk';
import { lockingScriptOf } from '../../src/crypto/script-objects.js';
import { txidOf } from '../../src/crypto/txid.js';
import { recomputeLedger, recomputeOutputs } from '../../src/domain/ledger-audit.js';
import { readTransaction, UnreadableTransactionError } from '../../src/domain/read-transaction.js';
import { readLedgerTransaction, reconcile, touchesService } from '../../src/domain/reconciliation.js';
import { buildTokenScript } from '../../src/domain/token-script.js';
import {
  FOUR_BILLION_INPUTS,
  HOSTILE,
  parsedSafely,
  SIXTEEN_MILLION_INPUTS,
} from '../support/parser-tripwire.js';
import { party } from '../support/token-world.js';

const approver = party('read tx approver');
const mint = party('read tx mint');
const COUNT_REASON = 'input count larger than the bytes can hold';

/** A deploy of 1,000 tokens to the mint address, spending one made-up funding output. */
function genesis() {
  const tx = new Transaction(1, [], [], 0);
  tx.addInput({
    sourceTXID: 'f'.repeat(64),
    sourceOutputIndex: 0,
    sequence: 0xffffffff,
    unlockingScript: new UnlockingScript(),
  });
  const script = buildTokenScript({
    inscription: { op: 'deploy+mint', amt: 1_000n, dec: 0 },
    ownerPkh: mint.pkh,
    approver: approver.publicKey,
  });
  tx.addOutput({ satoshis: 1, lockingScript: lockingScriptOf(script) });
  const raw = tx.toUint8Array();
  return { txid: txidOf(raw), raw };
}

/** `fn` with the tripwire armed: no bytes that do not fit reach the parser (which would run out of memory). */
const quickly = <T>(fn: () => T): Promise<T> => parsedSafely(fn);

describe('readTransaction', () => {
  for (const hostile of HOSTILE) {
    it(`refuses ${hostile.length} bytes announcing more inputs than they hold, at once`, async () => {
      const err = await quickly(() => {
        try {
          readTransaction(hostile, 'ab'.repeat(32));
        } catch (e) {
          return e;
        }
        return undefined;
      });
      assert.ok(err instanceof UnreadableTransactionError);
      assert.equal(err.name, 'UnreadableTransactionError');
      assert.equal(err.reason, COUNT_REASON);
      assert.equal(err.txid, 'ab'.repeat(32));
      assert.match(err.message, /transaction abab.*: not a whole raw transaction: input count larger/);
    });
  }

  it('refuses trailing bytes and a short version', async () => {
    const { raw } = genesis();
    await parsedSafely(() => {
      assert.throws(
        () => readTransaction(Uint8Array.from([...raw, 0])),
        (e: unknown) => e instanceof UnreadableTransactionError && /trailing bytes/.test(e.message),
      );
      assert.throws(() => readTransaction(Uint8Array.of(1, 0)), UnreadableTransactionError);
    });
  });

  it('reads a whole transaction, keeping its bytes: a non-minimal varint keeps its txid', async () => {
    const { txid, raw } = genesis();
    const tx = await parsedSafely(() => readTransaction(raw));
    assert.equal(tx.id('hex'), txid);
    assert.equal(tx.outputs.length, 1);
    // The empty unlocking script's length as fd 0000 instead of 00: the same transaction to the
    // sdk, another txid to the network. Re-serialized, the txid would change.
    const at = 4 + 1 + 36;
    assert.equal(raw[at], 0);
    const padded = Uint8Array.from([...raw.subarray(0, at), 0xfd, 0, 0, ...raw.subarray(at + 1)]);
    const read = await parsedSafely(() => readTransaction(padded));
    assert.equal(read.id('hex'), txidOf(padded));
    assert.notEqual(txidOf(padded), txid);
  });
});

describe('reconciliation: hostile bytes from the ledger or an operator', () => {
  const token = { tokenId: `${'cd'.repeat(32)}_0`, fundingAddress: party('read tx funding').address };

  it('reads them as bytes that do not parse (null), and reconciles past them', async () => {
    await quickly(() => {
      for (const hostile of HOSTILE) {
        assert.equal(readLedgerTransaction(hostile, txidOf(hostile), token), null);
        assert.equal(touchesService(hostile, txidOf(hostile), token), false);
      }
      const result = reconcile(
        { tickets: [], records: new Set(), outputs: new Map(), freeFunding: [], fundingTxids: new Set() },
        {
          ticketWords: new Map(),
          transactions: HOSTILE.map((raw) => ({ txid: txidOf(raw), raw, word: { kind: 'mempool' } })),
        },
        token,
      );
      assert.deepEqual(result.differences, []);
      assert.deepEqual(result.ingest, []);
    });
  });
});

describe('ledger audit: a stored record whose bytes announce more than they hold', () => {
  it('lists it and counts it as creating and spending nothing', async () => {
    const deploy = genesis();
    const tokenId = `${deploy.txid}_0`;
    const corrupted = { txid: 'ee'.repeat(32), raw: SIXTEEN_MILLION_INPUTS };
    const other = { txid: 'dd'.repeat(32), raw: FOUR_BILLION_INPUTS };
    const { outputs, unreadable } = await quickly(() => recomputeLedger([deploy, corrupted, other], tokenId));
    assert.deepEqual(unreadable, [
      { txid: corrupted.txid, reason: COUNT_REASON },
      { txid: other.txid, reason: COUNT_REASON },
    ]);
    assert.deepEqual([...outputs.keys()], [tokenId]);
    assert.equal(outputs.get(tokenId)?.spent, false);
  });

  it('recomputeOutputs throws a clear error naming the record', async () => {
    const deploy = genesis();
    await quickly(() =>
      assert.throws(
        () => recomputeOutputs([deploy, { txid: 'ee'.repeat(32), raw: SIXTEEN_MILLION_INPUTS }], 'x_0'),
        (e: unknown) =>
          e instanceof UnreadableTransactionError && e.txid === 'ee'.repeat(32) && e.reason === COUNT_REASON,
      ),
    );
  });
});
