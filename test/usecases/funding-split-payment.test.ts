// The pool's own split, sent but not recorded (its answer lost), named as an operator's funding
// payment (reconcile lists it as an untracked funding transaction): refused 409
// FUNDING_SPLIT_UNDER_WAY, and the keeper records it on its next pass. Taken as a payment, its
// 470 pool outputs were reserve as well, and a later split spent outputs transfers held.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { hash160 } from '../../src/crypto/hash.js';
import { publicKeyOf } from '../../src/crypto/secp256k1.js';
import { DomainError } from '../../src/domain/domain-error.js';
import { buildP2pkhScript } from '../../src/domain/token-script.js';
import type { Ledger } from '../../src/ledger/port.js';
import { addReserveOutputs } from '../../src/store/funding/funding-reserve.js';
import { refillFundingPool } from '../../src/usecases/funding/pool-refill.js';
import { recordFundingPayment } from '../../src/usecases/funding/record-funding-payment.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { fundingDevnet } from '../support/funding-devnet.js';
import { party } from '../support/token-world.js';

const funding = party('split payment funding');
const fundingScript = buildP2pkhScript(hash160(publicKeyOf(funding.privateKey)));
const silent = { info() {}, warn() {}, error() {} } as never;

describeOnEachDb('a funding payment naming the split under way', (fresh) => {
  const devnet = fundingDevnet(fundingScript);
  let answersLost = 0;
  const ledger = (): Ledger =>
    ({
      ...devnet(),
      broadcast: async (raw: Uint8Array) => {
        const answer = await devnet().broadcast(raw);
        if (answersLost > 0) {
          answersLost--;
          throw new Error('connection lost after the ledger took the split');
        }
        return answer;
      },
    }) as Ledger;
  const refill = () =>
    refillFundingPool(
      {
        db: fresh.db,
        ledger: ledger(),
        fundingKey: funding.privateKey,
        feeRate: async () => 100n,
        now: () => new Date(),
        log: silent,
      },
      100,
    );

  it('is refused, and the keeper records it: no outpoint both in the pool and the reserve', async () => {
    const [unspent] = devnet().utxos(fundingScript);
    assert.ok(unspent);
    await addReserveOutputs(
      fresh.db,
      [{ txid: unspent.txid, vout: unspent.vout, satoshis: unspent.satoshis }],
      'payment',
      new Date(),
    );
    answersLost = 1;
    await assert.rejects(refill(), /connection lost/);
    const [splitTxid] = devnet().mempoolTxids();
    assert.ok(splitTxid);
    await assert.rejects(
      recordFundingPayment(
        { db: fresh.db, ledger: devnet() as unknown as Ledger, fundingScript, now: () => new Date() },
        splitTxid,
      ),
      (err: unknown) => err instanceof DomainError && err.code === 'FUNDING_SPLIT_UNDER_WAY',
    );
    assert.equal(await refill(), splitTxid, 'the kept split is sent again and recorded');
    const [pool] = await fresh.db.query<{ n: string }>(
      `SELECT count(*) AS n FROM funding_outputs WHERE txid = $1 AND state = 'available'`,
      [splitTxid],
    );
    assert.ok(Number(pool!.n) > 0);
    const [both] = await fresh.db.query<{ n: string }>(
      `SELECT count(*) AS n FROM funding_outputs o JOIN funding_reserve r ON r.txid = o.txid AND r.vout = o.vout`,
    );
    assert.equal(Number(both!.n), 0, 'an outpoint in the pool and the reserve at once');
    // Once recorded, a payment of it adds nothing: its outputs are the pool's, its change reserve.
    const again = await recordFundingPayment(
      { db: fresh.db, ledger: devnet() as unknown as Ledger, fundingScript, now: () => new Date() },
      splitTxid,
    );
    assert.equal(again.recorded.length, 0);
  });
});
