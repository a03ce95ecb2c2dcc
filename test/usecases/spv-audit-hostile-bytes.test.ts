// Stored records whose bytes announce more inputs than they hold (16 million in 9 bytes, four
// billion in 15: a corrupted row, a bad restore) made @bsv/sdk allocate until the process died
// when `tokenproxy audit` or an Atomic BEEF read them. Now the audit lists such a record (as
// creating and spending nothing) and is not ok, and the BEEF fails at once with a clear error
// naming the transaction, whether its bytes are stored or an ancestor's come from the ledger.
// On PGlite, and PostgreSQL when TEST_DATABASE_URL is set. The parser tripwire fails the test,
// not the runner's memory, on code without the guard.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { LockingScript, Transaction, UnlockingScript } from '@bsv/sdk';
import { UnreadableTransactionError } from '../../src/domain/read-transaction.js';
import type { ServiceContext } from '../../src/usecases/context.js';
import { provenTransaction } from '../../src/usecases/spv/spv-proofs.js';
import { auditLedger } from '../../src/usecases/supply/audit-ledger.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { HOSTILE, parsedSafely } from '../support/parser-tripwire.js';
import { randomTxid, seedTransaction } from '../support/seed-store.js';

const COUNT_REASON = 'input count larger than the bytes can hold';
const rejectsNaming = (txid: string) => (e: unknown) =>
  e instanceof UnreadableTransactionError && e.txid === txid && e.reason === COUNT_REASON;

describeOnEachDb('stored bytes announcing more inputs than they hold', (fresh) => {
  const token = { tokenId: `${'d'.repeat(64)}_0`, mintAddress: 'mint', burnAddress: 'burn' };
  const corrupted = HOSTILE.map(() => randomTxid());
  const orphanParent = randomTxid();
  /** A ledger that holds nothing mined and serves the hostile bytes for any transaction. */
  const ctx = () =>
    ({
      db: fresh.db,
      ledger: {
        status: async () => ({ kind: 'mempool' }),
        rawTransaction: async () => HOSTILE[0],
      },
      tracker: { finalConfirmations: 3 },
    }) as unknown as ServiceContext;

  it('the audit lists each such record and is not ok, at once', async () => {
    assert.equal((await auditLedger(fresh.db, token)).ok, true, 'an empty ledger agrees with itself');
    for (const [i, raw] of HOSTILE.entries())
      await seedTransaction(fresh.db, { txid: corrupted[i], rawTx: raw });
    const report = await parsedSafely(() => auditLedger(fresh.db, token));
    assert.equal(report.ok, false);
    assert.equal(report.transactions, HOSTILE.length);
    assert.deepEqual(
      [...report.unreadableTransactions].sort((a, b) => (a.txid < b.txid ? -1 : 1)),
      corrupted.map((txid) => ({ txid, reason: COUNT_REASON })).sort((a, b) => (a.txid < b.txid ? -1 : 1)),
    );
    assert.deepEqual(report.outputDifferences, []);
  });

  it('an Atomic BEEF of such a record fails at once, naming it', async () => {
    for (const txid of corrupted)
      await parsedSafely(() => assert.rejects(provenTransaction(ctx(), txid), rejectsNaming(txid)));
  });

  it("an Atomic BEEF whose ancestor's bytes from the ledger are such bytes fails at once, naming it", async () => {
    const child = new Transaction(1, [], [], 0);
    child.addInput({
      sourceTXID: orphanParent,
      sourceOutputIndex: 0,
      sequence: 0xffffffff,
      unlockingScript: new UnlockingScript(),
    });
    child.addOutput({ satoshis: 1, lockingScript: new LockingScript() });
    const { txid } = await seedTransaction(fresh.db, { rawTx: child.toUint8Array() });
    await parsedSafely(() => assert.rejects(provenTransaction(ctx(), txid), rejectsNaming(orphanParent)));
  });
});
