// The funding keeper reads bytes back it did not just make: the devnet's raw transaction of an
// output paying the funding address (read from its journal on disk when it is in a block), and
// the kept split's bytes (from the settings table). Bytes announcing 16 million inputs in 9 (or
// four billion in 15) made @bsv/sdk allocate until the process died; now the round fails at once
// with a clear error naming them, and nothing is recorded. On PGlite, and PostgreSQL when
// TEST_DATABASE_URL is set. The parser tripwire fails the test, not the runner's memory, on
// code without the guard.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { hash160 } from '../../src/crypto/hash.js';
import { publicKeyOf } from '../../src/crypto/secp256k1.js';
import { UnreadableTransactionError } from '../../src/domain/read-transaction.js';
import { buildP2pkhScript } from '../../src/domain/token-script.js';
import type { Ledger } from '../../src/ledger/port.js';
import type { Logger } from '../../src/process/logger.js';
import { availableReserve } from '../../src/store/funding/funding-reserve.js';
import { writeSetting } from '../../src/store/settings.js';
import { noticeFundingPayments } from '../../src/usecases/funding/notice-funding-payments.js';
import { refillFundingPool } from '../../src/usecases/funding/pool-refill.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { HOSTILE, parsedSafely } from '../support/parser-tripwire.js';
import { party } from '../support/token-world.js';

const funding = party('hostile bytes funding');
const fundingScript = buildP2pkhScript(hash160(publicKeyOf(funding.privateKey)));
const silent = { info() {}, warn() {}, error() {} } as unknown as Logger;
const PAYMENT_TXID = 'ab'.repeat(32);

describeOnEachDb('funding: stored bytes announcing more inputs than they hold', (fresh) => {
  for (const raw of HOSTILE) {
    it(`noticing payments fails at once on ${raw.length} such bytes, recording nothing`, async () => {
      const lister = {
        utxos: () => [{ txid: PAYMENT_TXID, vout: 0, satoshis: 5_000n, lockingScript: fundingScript }],
        rawTransaction: async () => raw,
      };
      await parsedSafely(() =>
        assert.rejects(
          noticeFundingPayments({
            db: fresh.db,
            ledger: lister,
            fundingKey: funding.privateKey,
            now: () => new Date(),
            log: silent,
          }),
          (e: unknown) =>
            e instanceof UnreadableTransactionError &&
            e.txid === PAYMENT_TXID &&
            e.reason === 'input count larger than the bytes can hold',
        ),
      );
      assert.deepEqual(await availableReserve(fresh.db), []);
    });
  }

  for (const raw of HOSTILE) {
    it(`a kept split of ${raw.length} such bytes is refused before it is sent`, async () => {
      await writeSetting(
        fresh.db,
        'funding_split_intent',
        { rawTx: Buffer.from(raw).toString('hex') },
        new Date(),
      );
      const ledger = {
        broadcast: async () => assert.fail('a split that is no transaction is never sent'),
      } as unknown as Ledger;
      await parsedSafely(() =>
        assert.rejects(
          refillFundingPool(
            {
              db: fresh.db,
              ledger,
              fundingKey: funding.privateKey,
              feeRate: async () => 100n,
              now: () => new Date(),
              log: silent,
            },
            100,
          ),
          /the kept funding split is not a whole transaction/,
        ),
      );
    });
  }
});
