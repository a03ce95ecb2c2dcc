// The Atomic BEEF of a transfer funded by an unmined split of an operator's mined payment, on a
// ledger that serves no raw transactions (ARC, for transactions another process broadcast), on a
// real devnet and a real database (PGlite, and PostgreSQL when TEST_DATABASE_URL is set). The
// operator gave the payment's bytes when recording it; they are kept with it, so the BEEF reaches
// back through the split to the payment, which carries its merkle path.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Transaction } from '@bsv/sdk';
import { hash160 } from '../../src/crypto/hash.js';
import { publicKeyOf } from '../../src/crypto/secp256k1.js';
import { buildP2pkhScript } from '../../src/domain/token-script.js';
import type { Ledger } from '../../src/ledger/port.js';
import type { ServiceContext } from '../../src/usecases/context.js';
import { recordFundingPayment } from '../../src/usecases/funding/record-funding-payment.js';
import { atomicBeefOf } from '../../src/usecases/spv/spv-proofs.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { fundingDevnet, splitOnce } from '../support/funding-devnet.js';
import { pay } from '../support/payment.js';
import { seedTransaction } from '../support/seed-store.js';
import { party } from '../support/token-world.js';

const funding = party('spv funding payment');
const fundingScript = buildP2pkhScript(hash160(publicKeyOf(funding.privateKey)));

describeOnEachDb('the BEEF of a transfer funded by a split of a payment', (fresh) => {
  const devnet = fundingDevnet(fundingScript);
  /** The devnet, but serving no raw transaction. */
  const ledger = (): Ledger =>
    ({
      ...devnet(),
      broadcast: (raw: Uint8Array) => devnet().broadcast(raw),
      status: (txid: string) => devnet().status(txid),
      rawTransaction: async () => null,
    }) as Ledger;

  it('reaches back through the split to the kept payment and its path', async () => {
    const [coin] = devnet().utxos(fundingScript);
    const payment = pay(coin!, funding.privateKey, [], 1_000n);
    assert.ok((await devnet().broadcast(payment.raw)).ok);
    await devnet().mine(1);
    await recordFundingPayment(
      { db: fresh.db, ledger: ledger(), fundingScript, now: () => new Date() },
      payment.txid,
      payment.raw,
    );
    const split = await splitOnce(fresh.db, ledger(), funding.privateKey);
    assert.ok(split !== null);
    // The devnet lists mined coins only: the split's first pool output, as the pool recorded it.
    const [poolOutput] = await fresh.db.query<{ vout: number; satoshis: string }>(
      'SELECT vout, satoshis FROM funding_outputs WHERE txid = $1 ORDER BY vout LIMIT 1',
      [split],
    );
    const spend = pay(
      { txid: split!, vout: Number(poolOutput!.vout), satoshis: BigInt(poolOutput!.satoshis) },
      funding.privateKey,
      [],
      100n,
    );
    assert.ok((await devnet().broadcast(spend.raw)).ok);
    await seedTransaction(fresh.db, { txid: spend.txid, rawTx: spend.raw });
    const ctx = {
      db: fresh.db,
      ledger: ledger(),
      tracker: { finalConfirmations: 3 },
    } as unknown as ServiceContext;

    const beef = Transaction.fromAtomicBEEF(Buffer.from(await atomicBeefOf(ctx, spend.txid), 'hex'));
    const splitTx = beef.inputs[0]!.sourceTransaction;
    assert.equal(splitTx?.id('hex'), split);
    assert.equal(splitTx?.merklePath, undefined, 'the split is not mined');
    const paymentTx = splitTx?.inputs[0]?.sourceTransaction;
    assert.equal(paymentTx?.id('hex'), payment.txid);
    assert.ok(paymentTx?.merklePath !== undefined, 'the payment carries its path');
  });
});
