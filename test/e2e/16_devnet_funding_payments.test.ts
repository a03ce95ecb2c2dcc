// On the embedded devnet the tracker notices payments to the funding address by itself: a
// wallet pays the funding address in two outputs, the outputs become reserve without anyone
// telling the service, the funding key's own transactions are never taken for payments, and
// a low pool is refilled from the payment.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressesOf } from '../../src/keys/operator-keys.js';
import { availableFundingCount } from '../../src/store/funding/funding-pool.js';
import { availableReserve, reserveOfTransaction } from '../../src/store/funding/funding-reserve.js';
import { pay } from '../support/payment.js';
import { party } from '../support/token-world.js';
import { eventually, serviceForSuite } from './support.js';

const wallet = party('devnet funding wallet');

describe('devnet: payments to the funding address are noticed', () => {
  const t = serviceForSuite();

  it('records a wallet’s payment as reserve, never the funding key’s own transactions, and refills from it', async () => {
    const { db, devnet, keys } = t.service.parts;
    const fundingAddress = addressesOf(keys).fundingAddress;
    // The wallet's money: the reserve left by the first split, taken out of the service's
    // books and sent to the wallet by the funding key (a transaction the service must skip).
    const [reserve] = await availableReserve(db);
    assert.ok(reserve !== undefined && reserve.satoshis > 2_000_000_000n, 'the first split left a reserve');
    await db.query("UPDATE funding_reserve SET state = 'spent' WHERE txid = $1 AND vout = $2", [
      reserve.txid,
      reserve.vout,
    ]);
    const toWallet = pay(reserve, keys.funding, [{ address: wallet.address, satoshis: 2_000_000_000n }]);
    assert.ok((await devnet!.broadcast(toWallet.raw)).ok);
    const payment = pay({ txid: toWallet.txid, vout: 0, satoshis: 2_000_000_000n }, wallet.privateKey, [
      { address: fundingAddress, satoshis: 600_000_000n },
      { address: fundingAddress, satoshis: 400_000_000n },
    ]);
    assert.ok((await devnet!.broadcast(payment.raw)).ok);
    await devnet!.mine(1);

    const noticed = await eventually(async () => {
      const rows = await reserveOfTransaction(db, payment.txid);
      return rows.length === 2 ? rows : undefined;
    }, 'the payment noticed');
    assert.deepEqual(
      noticed.map((r) => [r.vout, r.satoshis, r.source, r.state]),
      [
        [0, 600_000_000n, 'payment', 'available'],
        [1, 400_000_000n, 'payment', 'available'],
      ],
    );
    // The funding key's change of its own transaction is not a payment.
    assert.deepEqual(await reserveOfTransaction(db, toWallet.txid), []);

    // The pool runs low: the next refill splits the larger output of the payment.
    await db.query("DELETE FROM funding_outputs WHERE state = 'available'");
    await eventually(
      async () => ((await availableFundingCount(db)) >= 100 ? true : undefined),
      'the pool refilled',
      150,
    );
    const after = await reserveOfTransaction(db, payment.txid);
    assert.deepEqual(
      after.map((r) => r.state),
      ['spent', 'available'],
    );
    assert.equal((await reserveOfTransaction(db, payment.txid)).length, 2, 'recorded once');
  });
});
