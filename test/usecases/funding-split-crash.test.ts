// A funding split cut off after the ledger took it and before it was recorded (a kill, a lost
// connection), on a real devnet and a real database (PGlite, and PostgreSQL when
// TEST_DATABASE_URL is set): the next refill sends the same bytes again, whatever the fee rate
// is by then, and records the outputs the network holds; refills asked at once (two trackers
// during a deploy) record it once.
import assert from 'node:assert/strict';
import { beforeEach, it } from 'node:test';
import { hash160 } from '../../src/crypto/hash.js';
import { publicKeyOf } from '../../src/crypto/secp256k1.js';
import { buildP2pkhScript } from '../../src/domain/token-script.js';
import type { Ledger } from '../../src/ledger/port.js';
import { availableFundingCount } from '../../src/store/funding/funding-pool.js';
import { addReserveOutputs, availableReserve } from '../../src/store/funding/funding-reserve.js';
import { refillFundingPool } from '../../src/usecases/funding/pool-refill.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { fundingDevnet } from '../support/funding-devnet.js';
import { party } from '../support/token-world.js';

const funding = party('split crash funding');
const fundingScript = buildP2pkhScript(hash160(publicKeyOf(funding.privateKey)));
const silent = { info() {}, warn() {}, error() {} };

describeOnEachDb('a funding split cut off before it was recorded', (fresh) => {
  const devnet = fundingDevnet(fundingScript);
  /** Broadcasts reach the devnet; the next `cut` of them are then lost on the way back. */
  let cut = 0;
  const ledger = (): Ledger =>
    ({
      ...devnet(),
      broadcast: async (raw: Uint8Array) => {
        const answer = await devnet().broadcast(raw);
        if (cut > 0) {
          cut--;
          throw new Error('connection lost after the ledger took the split');
        }
        return answer;
      },
    }) as Ledger;
  const refill = (feeRate: bigint) =>
    refillFundingPool(
      {
        db: fresh.db,
        ledger: ledger(),
        fundingKey: funding.privateKey,
        feeRate: async () => feeRate,
        now: () => new Date(),
        log: silent,
      },
      100,
    );

  beforeEach(async () => {
    // Each case starts from one reserve output the devnet holds unspent.
    await fresh.db.query("UPDATE funding_outputs SET state = 'spent'");
    await fresh.db.query('DELETE FROM funding_reserve');
    const [unspent] = devnet()
      .utxos(fundingScript)
      .sort((a, b) => Number(b.satoshis - a.satoshis));
    assert.ok(unspent !== undefined);
    await addReserveOutputs(
      fresh.db,
      [{ txid: unspent.txid, vout: unspent.vout, satoshis: unspent.satoshis }],
      'payment',
      new Date(),
    );
  });

  it('the next refill, under another fee rate, sends the same split and records its outputs', async () => {
    cut = 1;
    await assert.rejects(refill(100n), /connection lost/);
    assert.equal(await availableFundingCount(fresh.db), 0, 'nothing recorded yet');
    const [kept] = devnet().mempoolTxids();
    assert.ok(kept !== undefined, 'the ledger took the split');
    // The fee rate changed meanwhile: a split built again would differ, and the ledger would
    // refuse it as spending the same reserve output.
    const txid = await refill(500n);
    assert.equal(txid, kept);
    assert.equal(await availableFundingCount(fresh.db), 470);
    const [change] = await availableReserve(fresh.db);
    assert.equal(change?.txid, kept, 'the split change is the reserve now');
    await devnet().mine(1);
  });

  it('refills asked at once resume the kept split together and record it once', async () => {
    cut = 1;
    await assert.rejects(refill(100n), /connection lost/);
    const [kept] = devnet().mempoolTxids();
    const answers = await Promise.all([refill(300n), refill(400n), refill(500n)]);
    // A refill that looks after another has recorded the split finds no split kept and the pool
    // full: it sends nothing (null). None sends a split of its own.
    assert.ok(answers.includes(kept!), `one of them sent the kept split: ${answers}`);
    for (const answer of answers) assert.ok(answer === kept || answer === null, `${answer}`);
    assert.equal(await availableFundingCount(fresh.db), 470);
    assert.equal((await availableReserve(fresh.db)).length, 1);
    // Nothing is kept any more: the pool is full, so a refill now makes nothing.
    assert.equal(await refill(100n), null);
    await devnet().mine(1);
  });
});
