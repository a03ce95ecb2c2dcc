// Chaos: the funding pool runs dry. The service (PGlite, the devnet behind its ARC API) deploys
// from a coin that pays for one split of the pool and not a second; the pool is then taken
// down to three outputs (as if the transfers before had spent the rest). Transfers beyond
// those answer 503 FUNDING_EXHAUSTED with Retry-After and leave nothing behind; once the
// operator's funds arrive (a real payment of two outputs to the funding address from the
// operator's wallet, told to the service through POST /v2/admin/funding/payments), the pool
// refills and the wallets' resent transfers flow: every one gets a ticket and reaches MINED.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiContextOf } from '../../src/compose.js';
import { hash160 } from '../../src/crypto/hash.js';
import { publicKeyOf } from '../../src/crypto/secp256k1.js';
import { bytesEqual } from '../../src/domain/script-chunks.js';
import { buildP2pkhScript } from '../../src/domain/token-script.js';
import { addressesOf } from '../../src/keys/operator-keys.js';
import { createApiKey } from '../../src/store/access/api-keys-store.js';
import { availableFundingCount } from '../../src/store/funding/funding-pool.js';
import { reserveOfTransaction } from '../../src/store/funding/funding-reserve.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import { assertProblem, http, ticketIdOf, transferOf, utxosOf } from '../e2e/e2e-http.js';
import { eventually, startTestService, type TestService } from '../e2e/support.js';
import { type Ledger, startLedger } from '../support/ledger-world.js';
import { pay } from '../support/payment.js';
import { party } from '../support/token-world.js';

const holder = party('dry holder');
const recipient = party('dry recipient');
const TRANSFERS = 8;
const LEFT_IN_POOL = 3;
/** At 100 sat/kB one split of the pool costs about 366,400 satoshis: this pays for one, not two. */
const DEPLOY_COIN = 600_000n;
/** The operator's wallet: a coin of another key, paid into the funding address later. */
const operatorWallet = party('dry operator wallet');
const walletScript = buildP2pkhScript(hash160(publicKeyOf(operatorWallet.privateKey)));
const WALLET_COIN = 1_000_000_000n;

describe('chaos: the funding pool runs dry, then is funded again', () => {
  let ledger: Ledger;
  let t: TestService;
  let key: string;
  let rawtxs: string[];

  const submit = (rawtx: string) => http(t.url, 'POST', '/v2/transfer', { key, body: { rawtx } });
  const ticketsMined = async () => {
    const rows = await t.service.parts.db.query<{ n: string }>(
      "SELECT count(*) AS n FROM tickets WHERE status <> 'MINED'",
    );
    return rows[0]?.n === '0' ? true : undefined;
  };

  before(async () => {
    ledger = await startLedger('dry', {
      genesis: [DEPLOY_COIN],
      others: [{ lockingScript: walletScript, satoshis: WALLET_COIN }],
      feeRateSatPerKb: 100n,
    });
    t = await startTestService([...ledger.flags, '--tracker-poll-ms', '200', '--no-rate-limit-enabled']);
    const { parts } = t.service;
    await ledger.devnet.mine(1);
    key = (await createApiKey(parts.db, parts.masterKey, { name: 'wallets', scopes: ['read', 'submit'] }))
      .key;
    for (let i = 0; i < TRANSFERS; i++)
      await mintTokens(apiContextOf(parts), parts.keys.mint, {
        to: holder.address,
        amount: BigInt(100_000 + i),
      });
    await ledger.devnet.mine(1);
    await eventually(ticketsMined, 'the mints MINED', 300);
    const outputs = await utxosOf(t.url, key, holder.address);
    assert.equal(outputs.length, TRANSFERS);
    rawtxs = outputs.map((o, i) =>
      transferOf(parts.ctx.token, {
        from: holder,
        inputs: [o],
        to: recipient,
        amount: BigInt(1000 + i),
        fee: 100n,
      }),
    );
  });

  after(async () => {
    await t?.stop();
    await ledger?.close();
  });

  it('answers 503 with Retry-After once the pool is empty, and keeps nothing of those', async () => {
    const { db } = t.service.parts;
    assert.ok((await availableFundingCount(db)) > LEFT_IN_POOL, 'the first split filled the pool');
    await db.query(
      `DELETE FROM funding_outputs WHERE state = 'available' AND (txid, vout) NOT IN
         (SELECT txid, vout FROM funding_outputs WHERE state = 'available' ORDER BY satoshis LIMIT $1)`,
      [LEFT_IN_POOL],
    );
    // The tracker tries to refill every 5 s; the reserve left cannot pay for a split.
    await new Promise((r) => setTimeout(r, 5_500));
    assert.equal(await availableFundingCount(db), LEFT_IN_POOL, 'the reserve could not refill the pool');

    const ticketCount = async () =>
      Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM tickets'))[0]?.n);
    const ticketsBefore = await ticketCount();
    const answers = [];
    for (const rawtx of rawtxs) answers.push(await submit(rawtx));
    assert.deepEqual(
      answers.map((a) => a.status),
      [...Array(LEFT_IN_POOL).fill(200), ...Array(TRANSFERS - LEFT_IN_POOL).fill(503)],
    );
    for (const a of answers.slice(LEFT_IN_POOL)) {
      assertProblem(a, 503, 'FUNDING_EXHAUSTED');
      assert.ok(Number(a.headers.get('retry-after')) > 0, `Retry-After: ${a.headers.get('retry-after')}`);
    }
    assert.equal(
      await ticketCount(),
      ticketsBefore + LEFT_IN_POOL,
      'a ticket for each accepted transfer only',
    );
    const held = await db.query<{ n: string }>(
      'SELECT count(*) AS n FROM token_outputs WHERE owner = $1 AND (reserved_by IS NOT NULL OR spent_by IS NOT NULL)',
      [holder.address],
    );
    assert.equal(Number(held[0]?.n), LEFT_IN_POOL, 'only the accepted transfers hold their inputs');
  });

  it('after funding, the pool refills and every transfer gets a ticket and reaches MINED', async () => {
    const { db } = t.service.parts;
    // The operator pays the funding address (printed by `tokenproxy fund`) from a wallet, in
    // two outputs, and tells the service the txid. The service's ledger is ARC, which serves
    // no raw transactions it did not broadcast itself: the raw transaction goes along.
    const funding = await http(t.url, 'GET', '/v2/admin/funding', { key: t.adminKey });
    const address = (funding.json as { address: string }).address;
    assert.equal(address, addressesOf(t.service.parts.keys).fundingAddress);
    const coin = ledger.devnet.utxos().find((u) => bytesEqual(u.lockingScript, walletScript))!;
    const payment = pay(coin, operatorWallet.privateKey, [
      { address, satoshis: 400_000_000n },
      { address, satoshis: 300_000_000n },
    ]);
    assert.ok((await ledger.devnet.broadcast(payment.raw)).ok);
    const told = await http(t.url, 'POST', '/v2/admin/funding/payments', {
      key: t.adminKey,
      body: { txid: payment.txid, rawtx: payment.hex },
    });
    assert.equal(told.status, 200, told.text);
    assert.equal((told.json as { recorded: unknown[] }).recorded.length, 2);
    const again = await http(t.url, 'POST', '/v2/admin/funding/payments', {
      key: t.adminKey,
      body: { txid: payment.txid, rawtx: payment.hex },
    });
    assert.equal(again.status, 200, again.text);
    assert.deepEqual((again.json as { recorded: unknown[] }).recorded, []);
    await eventually(
      async () => ((await availableFundingCount(db)) >= 100 ? true : undefined),
      'the pool refilled',
      300,
    );
    const reserve = await reserveOfTransaction(db, payment.txid);
    assert.deepEqual(
      reserve.map((r) => r.state),
      ['spent', 'available'],
      'the larger output paid for the split; the smaller waits',
    );
    const tickets = [];
    for (const rawtx of rawtxs) {
      const answer = await submit(rawtx);
      tickets.push(ticketIdOf(answer));
    }
    assert.equal(new Set(tickets).size, TRANSFERS);
    await eventually(
      async () => {
        await ledger.devnet.mine(1);
        return ticketsMined();
      },
      'every ticket MINED',
      300,
    );
    const balance = await http(t.url, 'POST', '/v2/balance', { key, body: [recipient.address] });
    const expected = rawtxs.reduce((sum, _, i) => sum + 1000 + i, 0);
    assert.equal((balance.json as { amt: number }[])[0]?.amt, expected);
  });
});
