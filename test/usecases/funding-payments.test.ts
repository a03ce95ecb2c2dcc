// The operator's payments into the funding pool, on a real devnet and a real database (PGlite,
// and PostgreSQL when TEST_DATABASE_URL is set): a payment of two outputs to the funding
// address is recorded once, the refill splits both (largest first) into the pool when it is
// low, and the ledger accepts the split; unknown transactions, transactions paying nothing to
// the funding address and a rawtx that is not the named transaction are refused with their codes.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { hash160 } from '../../src/crypto/hash.js';
import { publicKeyOf } from '../../src/crypto/secp256k1.js';
import { p2pkhAddress } from '../../src/domain/address.js';
import { DomainError } from '../../src/domain/domain-error.js';
import { bytesEqual } from '../../src/domain/script-chunks.js';
import { buildP2pkhScript } from '../../src/domain/token-script.js';
import { createDevnet, type Devnet } from '../../src/ledger/devnet/devnet.js';
import { availableFundingCount } from '../../src/store/funding/funding-pool.js';
import {
  addReserveOutputs,
  availableReserve,
  reserveOfTransaction,
} from '../../src/store/funding/funding-reserve.js';
import { refillFundingPool } from '../../src/usecases/funding/pool-refill.js';
import { recordFundingPayment } from '../../src/usecases/funding/record-funding-payment.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { pay } from '../support/payment.js';
import { party } from '../support/token-world.js';

const funding = party('payments funding');
const wallet = party('payments wallet');
const fundingScript = buildP2pkhScript(hash160(publicKeyOf(funding.privateKey)));
const walletScript = buildP2pkhScript(hash160(publicKeyOf(wallet.privateKey)));
const FEE_RATE = 100n;
const silent = { info() {}, warn() {}, error() {} };

const code = (expected: string) => (err: unknown) => {
  assert.ok(err instanceof DomainError, String(err));
  assert.equal(err.code, expected, err.message);
  return true;
};

describeOnEachDb('funding payments', (fresh) => {
  let devnet: Devnet;
  let payment: ReturnType<typeof pay>;
  let genesisCoin: { txid: string; vout: number };
  const deps = () => ({ db: fresh.db, ledger: devnet, fundingScript, now: () => new Date() });
  /** Refills the pool to 100 outputs from the reserve (the funding key's splits). */
  const refill = () =>
    refillFundingPool(
      {
        db: fresh.db,
        ledger: devnet,
        fundingKey: funding.privateKey,
        feeRate: async () => FEE_RATE,
        now: () => new Date(),
        log: silent,
      },
      100,
    );

  before(async () => {
    devnet = await createDevnet({
      genesis: [{ lockingScript: walletScript, satoshis: 10_000_000n }],
      blockIntervalMs: 0,
      feeRateSatPerKb: FEE_RATE,
    });
    const coin = devnet.utxos().find((u) => bytesEqual(u.lockingScript, walletScript))!;
    genesisCoin = coin;
    // Two outputs, neither enough for a split alone (one costs about 365,000 satoshis here).
    payment = pay(coin, wallet.privateKey, [
      { address: funding.address, satoshis: 250_000n },
      { address: funding.address, satoshis: 200_000n },
    ]);
    const sent = await devnet.broadcast(payment.raw);
    assert.ok(sent.ok, JSON.stringify(sent));
    await devnet.mine(1);
  });
  after(async () => {
    await devnet?.close();
  });

  it('records every output paying the funding address, once', async () => {
    const first = await recordFundingPayment(deps(), payment.txid);
    assert.deepEqual(
      first.recorded.map((o) => [o.vout, o.satoshis]),
      [
        [0, 250_000n],
        [1, 200_000n],
      ],
    );
    const again = await recordFundingPayment(deps(), payment.txid);
    assert.equal(again.outputs.length, 2);
    assert.deepEqual(again.recorded, []);
    const rows = await reserveOfTransaction(fresh.db, payment.txid);
    assert.deepEqual(
      rows.map((r) => [r.vout, r.satoshis, r.source, r.state]),
      [
        [0, 250_000n, 'payment', 'available'],
        [1, 200_000n, 'payment', 'available'],
      ],
    );
  });

  it('refuses an unknown txid (TX_NOT_FOUND) and a transaction paying nothing to it (NO_FUNDING_OUTPUT)', async () => {
    await assert.rejects(recordFundingPayment(deps(), 'ab'.repeat(32)), code('TX_NOT_FOUND'));
    const coinbase = devnet.utxos().find((u) => bytesEqual(u.lockingScript, walletScript))!;
    const elsewhere = pay(coinbase, wallet.privateKey, [
      { address: p2pkhAddress(party('someone').pkh), satoshis: 5_000n },
    ]);
    assert.ok((await devnet.broadcast(elsewhere.raw)).ok);
    await assert.rejects(recordFundingPayment(deps(), elsewhere.txid), code('NO_FUNDING_OUTPUT'));
    // A rawtx is looked at only when the ledger serves none, and must be the named transaction.
    const ghost = 'cd'.repeat(32);
    await assert.rejects(recordFundingPayment(deps(), ghost, elsewhere.raw), code('INVALID_TX'));
    assert.deepEqual(await reserveOfTransaction(fresh.db, elsewhere.txid), []);
  });

  it('a ledger that holds the payment but serves no raw transactions (ARC) asks for --rawtx', async () => {
    // A transaction the ledger holds: the one of any unspent output.
    const paid = { txid: devnet.utxos()[0]!.txid };
    // As ARC answers: the status of any transaction, the raw bytes of none it did not broadcast.
    const arcLike = new Proxy(devnet, {
      get: (target, name, receiver) =>
        name === 'rawTransaction' ? async () => null : Reflect.get(target, name, receiver),
    });
    await assert.rejects(recordFundingPayment({ ...deps(), ledger: arcLike }, paid.txid), (err: unknown) => {
      assert.ok(err instanceof DomainError);
      assert.equal(err.code, 'RAWTX_REQUIRED', err.message);
      assert.match(err.message, /serves no raw transactions/);
      assert.match(err.message, /--rawtx/);
      return true;
    });
    // One it does not hold at all is still TX_NOT_FOUND, with what to do.
    await assert.rejects(
      recordFundingPayment({ ...deps(), ledger: arcLike }, 'ef'.repeat(32)),
      (err: unknown) =>
        err instanceof DomainError && err.code === 'TX_NOT_FOUND' && /broadcast it first/.test(err.message),
    );
  });

  it('a low pool is refilled from both outputs, largest first; the ledger accepts the split', async () => {
    assert.equal(await availableFundingCount(fresh.db), 0);
    const txid = await refill();
    assert.ok(txid !== null, 'a split was made');
    assert.equal(await availableFundingCount(fresh.db), 470);
    const status = await devnet.status(txid);
    assert.equal(status.kind, 'mempool');
    await devnet.mine(1);
    assert.equal((await devnet.status(txid)).kind, 'mined');
    const raw = await devnet.rawTransaction(txid);
    assert.ok(raw !== null);
    const spent = await reserveOfTransaction(fresh.db, payment.txid);
    assert.deepEqual(
      spent.map((r) => r.state),
      ['spent', 'spent'],
    );
    const left = await availableReserve(fresh.db);
    assert.equal(left.length, 1);
    assert.equal(left[0]!.txid, txid);
    assert.equal(left[0]!.source, 'split');
    // Posting the split itself adds nothing: its pool outputs are not reserve, its change is.
    const split = await recordFundingPayment(deps(), txid);
    assert.equal(split.outputs.length, 471);
    assert.deepEqual(split.recorded, []);
  });

  it('a split the ledger refuses for good marks its reserve outputs refused; the next refill tries the others', async () => {
    await fresh.db.query("UPDATE funding_outputs SET state = 'spent'");
    // An output the ledger knows spent (the wallet's coin, spent by the payment), bigger
    // than the real reserve: tried first.
    await addReserveOutputs(
      fresh.db,
      [{ txid: genesisCoin.txid, vout: genesisCoin.vout, satoshis: 900_000_000n }],
      'payment',
      new Date(),
    );
    await assert.rejects(refill(), /funding split refused by the ledger/);
    const [spentCoin] = await reserveOfTransaction(fresh.db, genesisCoin.txid);
    assert.equal(spentCoin?.state, 'refused');
    assert.match(spentCoin?.error ?? '', /already spent/);
    // The next tries the split's change (about 85,000 satoshis), which cannot pay a split.
    assert.equal(await refill(), null);
    assert.equal((await availableReserve(fresh.db)).length, 1);
  });

  it('a refused split of several outputs refuses none of them: each is tried alone, and only the spent one is refused', async () => {
    await fresh.db.query("UPDATE funding_outputs SET state = 'spent'");
    const coin = devnet
      .utxos()
      .find((u) => bytesEqual(u.lockingScript, walletScript) && u.satoshis > 1_000_000n)!;
    const good = pay(coin, wallet.privateKey, [{ address: funding.address, satoshis: 300_000n }]);
    assert.ok((await devnet.broadcast(good.raw)).ok);
    await recordFundingPayment(deps(), good.txid);
    // Spent elsewhere (by the payment just made), smaller: the split needs both.
    const spent = { txid: coin.txid, vout: coin.vout };
    await addReserveOutputs(fresh.db, [{ ...spent, satoshis: 200_000n }], 'payment', new Date());
    const stateOf = async (o: { txid: string; vout: number }) =>
      (await reserveOfTransaction(fresh.db, o.txid)).find((r) => r.vout === o.vout)!;

    await assert.rejects(refill(), /funding split refused by the ledger/);
    for (const o of [{ txid: good.txid, vout: 0 }, spent]) {
      const row = await stateOf(o);
      assert.equal(row.state, 'available', 'in doubt, not refused');
      assert.match(row.error ?? '', /spent/);
    }
    // The larger alone first: a split of as many pool outputs as it pays.
    const probe = await refill();
    assert.ok(probe !== null);
    assert.equal((await stateOf({ txid: good.txid, vout: 0 })).state, 'spent');
    assert.ok((await availableFundingCount(fresh.db)) > 100, 'the pool was refilled from it');
    // Then the other alone, refused: now it is known spent.
    await fresh.db.query("UPDATE funding_outputs SET state = 'spent'");
    await assert.rejects(refill(), /funding split refused by the ledger/);
    assert.equal((await stateOf(spent)).state, 'refused');
  });
});
