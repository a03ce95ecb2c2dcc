// The Atomic BEEF of a transfer whose funding input spends a pool split, on a ledger that serves
// no raw transactions (as ARC does for transactions another process broadcast), on a real
// devnet and a real database (PGlite, and PostgreSQL when TEST_DATABASE_URL is set): the split's
// bytes are kept when it is recorded, so the BEEF is built; its path, once fetched, is kept and
// served from the store once its block is final, so a BEEF then asks the ledger only of the unmined
// transfer; before, a reorg may replace the split's block, and the path served is the one of the
// block the ledger has it in now (none while it is back in the mempool).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { type ChainTracker, Transaction } from '@bsv/sdk';
import { hash160 } from '../../src/crypto/hash.js';
import { publicKeyOf } from '../../src/crypto/secp256k1.js';
import { buildP2pkhScript } from '../../src/domain/token-script.js';
import type { Ledger } from '../../src/ledger/port.js';
import { addReserveOutputs } from '../../src/store/funding/funding-reserve.js';
import { currentHeaders } from '../../src/store/proofs/merkle-proofs.js';
import type { ServiceContext } from '../../src/usecases/context.js';
import { atomicBeefOf, proofOf } from '../../src/usecases/spv/spv-proofs.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { fundingDevnet, splitOnce } from '../support/funding-devnet.js';
import { pay } from '../support/payment.js';
import { seedTransaction } from '../support/seed-store.js';
import { party } from '../support/token-world.js';

const funding = party('spv funding parent');
const fundingScript = buildP2pkhScript(hash160(publicKeyOf(funding.privateKey)));

/** Blocks deep a block is final at, in these tests. */
const FINAL = 3;

describeOnEachDb('the BEEF of a transfer funded by a pool split', (fresh) => {
  const devnet = fundingDevnet(fundingScript);
  /**
   * A payment spending one of the split's pool outputs, standing for a transfer (its funding
   * input), held by the feed and unmined.
   */
  const transferFundedBy = async (split: string) => {
    const [poolOutput] = devnet()
      .utxos(fundingScript)
      .filter((u) => u.txid === split);
    const spend = pay(poolOutput!, funding.privateKey, [], 100n);
    assert.ok((await devnet().broadcast(spend.raw)).ok);
    await seedTransaction(fresh.db, { txid: spend.txid, rawTx: spend.raw });
    return spend;
  };
  /** A split of the reserve the earlier tests left, the pool used up first. */
  const splitAgain = async (): Promise<string> => {
    await fresh.db.query("UPDATE funding_outputs SET state = 'spent'");
    const split = await splitOnce(fresh.db, devnet(), funding.privateKey);
    assert.ok(split !== null);
    return split;
  };
  const contextOf = (ledger: Ledger, finalConfirmations = FINAL) =>
    ({ db: fresh.db, ledger, tracker: { finalConfirmations } }) as unknown as ServiceContext;
  let statusAsked: string[] = [];
  /** The devnet, but serving no raw transaction and counting status questions. */
  const ledger = (): Ledger =>
    ({
      ...devnet(),
      broadcast: (raw: Uint8Array) => devnet().broadcast(raw),
      rawTransaction: async () => null,
      tip: () => devnet().tip(),
      status: async (txid: string) => {
        statusAsked.push(txid);
        return devnet().status(txid);
      },
    }) as Ledger;

  it('is built from the kept split, and its path is served from the store the second time', async () => {
    const [coin] = devnet().utxos(fundingScript);
    await addReserveOutputs(fresh.db, [coin!], 'deploy', new Date());
    const split = await splitOnce(fresh.db, ledger(), funding.privateKey);
    assert.ok(split !== null);
    await devnet().mine(1);
    const spend = await transferFundedBy(split);
    const ctx = contextOf(ledger());

    const first = Transaction.fromAtomicBEEF(Buffer.from(await atomicBeefOf(ctx, spend.txid), 'hex'));
    assert.equal(first.inputs[0]!.sourceTransaction?.id('hex'), split);
    assert.ok(first.inputs[0]!.sourceTransaction?.merklePath !== undefined, 'the split carries its path');
    assert.deepEqual(statusAsked.sort(), [spend.txid, split].sort());

    // Not final yet: a reorg may still replace its block, so the ledger is asked again.
    statusAsked = [];
    await atomicBeefOf(ctx, spend.txid);
    assert.deepEqual(statusAsked.sort(), [spend.txid, split].sort(), 'asked again while not final');

    // Final (as deep as a service that counts one confirmation final needs).
    statusAsked = [];
    await atomicBeefOf(contextOf(ledger(), 1), spend.txid);
    assert.deepEqual(statusAsked, [spend.txid], 'the final split’s path came from the store');
  });

  it('after a reorg puts the split back in the mempool, has it unmined; mined again, in its new block', async () => {
    const split = await splitAgain();
    await devnet().mine(1);
    const ctx = contextOf(devnet());
    const first = await proofOf(ctx, split);
    assert.ok(first !== null);

    // A ledger that does not know the split says nothing of its block: the kept path stands.
    const forgetful = {
      ...contextOf(devnet()),
      ledger: { ...ledger(), status: async () => ({ kind: 'unknown' }) },
    };
    assert.equal((await proofOf(forgetful as unknown as ServiceContext, split))?.blockHash, first.blockHash);

    await devnet().reorg(1, { leaveInMempool: true });
    assert.equal((await devnet().status(split)).kind, 'mempool');
    assert.equal(await proofOf(ctx, split), null, 'a split back in the mempool has no merkle path');
    const headers = await currentHeaders(fresh.db, first.height, 10);
    assert.ok(!headers.some((h) => h.hash === first.blockHash), 'the replaced block is no longer current');

    await devnet().mine(1);
    const now = await devnet().status(split);
    assert.ok(now.kind === 'mined');
    assert.equal((await proofOf(ctx, split))?.blockHash, now.blockHash, 'the path of the block it is in now');
  });

  it('after a reorg at the same height, proves the split in the block of the chain the ledger follows', async () => {
    const split = await splitAgain();
    await devnet().mine(1);
    const ctx = contextOf(devnet());
    assert.ok((await proofOf(ctx, split)) !== null, 'an earlier BEEF kept its path');

    await devnet().reorg(1);
    const spend = await transferFundedBy(split);

    // A wallet's own headers: the ledger's chain.
    const tracker: ChainTracker = {
      async isValidRootForHeight(root: string, height: number) {
        const block = devnet().block(height);
        if (block === undefined) return false;
        const header = Buffer.from(block.header, 'hex');
        return Buffer.from(header.subarray(36, 68)).reverse().toString('hex') === root;
      },
      async currentHeight() {
        return (await devnet().tip()).height;
      },
    };
    const tx = Transaction.fromAtomicBEEF(Buffer.from(await atomicBeefOf(ctx, spend.txid), 'hex'));
    assert.equal(await tx.verify(tracker).catch((err: Error) => `threw: ${err.message}`), true);
  });
});
