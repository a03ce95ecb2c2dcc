// The Atomic BEEF of a transfer whose funding input spends a pool split, on a ledger that serves
// no raw transactions (as ARC does for transactions another process broadcast), on a real
// devnet and a real database (PGlite, and PostgreSQL when TEST_DATABASE_URL is set): the split's
// bytes are kept when it is recorded, so the BEEF is built; its path, once fetched, is kept and
// served from the store, so a second BEEF asks the ledger only of the unmined transfer.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Transaction } from '@bsv/sdk';
import { hash160 } from '../../src/crypto/hash.js';
import { publicKeyOf } from '../../src/crypto/secp256k1.js';
import { buildP2pkhScript } from '../../src/domain/token-script.js';
import type { Ledger } from '../../src/ledger/port.js';
import { addReserveOutputs } from '../../src/store/funding/funding-reserve.js';
import type { ServiceContext } from '../../src/usecases/context.js';
import { atomicBeefOf } from '../../src/usecases/spv/spv-proofs.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { fundingDevnet, splitOnce } from '../support/funding-devnet.js';
import { pay } from '../support/payment.js';
import { seedTransaction } from '../support/seed-store.js';
import { party } from '../support/token-world.js';

const funding = party('spv funding parent');
const fundingScript = buildP2pkhScript(hash160(publicKeyOf(funding.privateKey)));

describeOnEachDb('the BEEF of a transfer funded by a pool split', (fresh) => {
  const devnet = fundingDevnet(fundingScript);
  let statusAsked: string[] = [];
  /** The devnet, but serving no raw transaction and counting status questions. */
  const ledger = (): Ledger =>
    ({
      ...devnet(),
      broadcast: (raw: Uint8Array) => devnet().broadcast(raw),
      rawTransaction: async () => null,
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
    // A payment spending one of the split's pool outputs stands for the transfer (its funding
    // input), held by the feed and unmined.
    const [poolOutput] = devnet()
      .utxos(fundingScript)
      .filter((u) => u.txid === split);
    const spend = pay(poolOutput!, funding.privateKey, [], 100n);
    assert.ok((await devnet().broadcast(spend.raw)).ok);
    await seedTransaction(fresh.db, { txid: spend.txid, rawTx: spend.raw });
    const ctx = { db: fresh.db, ledger: ledger() } as unknown as ServiceContext;

    const first = Transaction.fromAtomicBEEF(Buffer.from(await atomicBeefOf(ctx, spend.txid), 'hex'));
    assert.equal(first.inputs[0]!.sourceTransaction?.id('hex'), split);
    assert.ok(first.inputs[0]!.sourceTransaction?.merklePath !== undefined, 'the split carries its path');
    assert.deepEqual(statusAsked.sort(), [spend.txid, split].sort());

    statusAsked = [];
    await atomicBeefOf(ctx, spend.txid);
    assert.deepEqual(statusAsked, [spend.txid], 'the split’s path came from the store');
  });
});
