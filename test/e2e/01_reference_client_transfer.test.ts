// The published client (@mnee/ts-sdk 1.1.2) against a real tokenproxy on a real port:
// config, balances, UTXO paging, a transfer to MINED with its ticket, and validateMneeTx.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Mnee from '@mnee/ts-sdk';
import { apiContextOf } from '../../src/compose.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import { party } from '../support/token-world.js';
import { eventually, redirectClientTo, startTestService, type TestService } from './support.js';

describe('reference client against tokenproxy', () => {
  let t: TestService;
  let restore: () => void;
  let mnee: Mnee;
  const alice = party('e2e alice');
  const bob = party('e2e bob');

  before(async () => {
    t = await startTestService();
    restore = redirectClientTo(t.url);
    mnee = new Mnee({ environment: 'sandbox', apiKey: t.adminKey });
    const { parts } = t.service;
    await mintTokens(apiContextOf(parts), parts.keys.mint, { to: alice.address, amount: 5_000_000n });
    await mintTokens(apiContextOf(parts), parts.keys.mint, { to: alice.address, amount: 2_500_000n });
  });

  after(async () => {
    restore?.();
    await t?.stop();
  });

  it('reads the config the service is built on', async () => {
    const config = await mnee.config();
    assert.equal(config.tokenId, t.service.parts.token.tokenId);
    assert.equal(config.decimals, 5);
    assert.equal(config.approver, t.service.parts.token.approver);
    assert.ok(config.fees.length > 0);
  });

  it('sees minted tokens as balance and UTXOs, paged and ordered', async () => {
    const balance = await mnee.balance(alice.address);
    assert.equal(balance.amount, 7_500_000);
    assert.equal(balance.decimalAmount, 75);
    const page1 = await mnee.getUtxos(alice.address, 1, 1, 'asc');
    const page2 = await mnee.getUtxos(alice.address, 2, 1, 'asc');
    const desc = await mnee.getUtxos(alice.address, 1, 1, 'desc');
    assert.deepEqual([page1[0]?.data.bsv21.amt, page2[0]?.data.bsv21.amt], [5_000_000, 2_500_000]);
    assert.equal(desc[0]?.data.bsv21.amt, 2_500_000);
    assert.equal((await mnee.getUtxos(alice.address, 3, 1)).length, 0);
  });

  it('transfers, and the ticket goes to SUCCESS then MINED', async () => {
    const { ticketId } = await mnee.transfer([{ address: bob.address, amount: 12.5 }], alice.wif);
    assert.ok(ticketId);
    const accepted = await eventually(async () => {
      const status = await mnee.getTxStatus(ticketId);
      return status.status === 'SUCCESS' || status.status === 'MINED' ? status : undefined;
    }, 'SUCCESS');
    assert.equal(accepted.id, ticketId);
    assert.equal(accepted.action_requested, 'transfer');
    assert.match(accepted.tx_id, /^[0-9a-f]{64}$/);
    assert.ok(await mnee.validateMneeTx(accepted.tx_hex));

    await t.service.parts.devnet!.mine(1);
    const mined = await eventually(async () => {
      const status = await mnee.getTxStatus(ticketId);
      return status.status === 'MINED' ? status : undefined;
    }, 'MINED');
    assert.equal(mined.tx_id, accepted.tx_id);

    assert.equal((await mnee.balance(bob.address)).amount, 1_250_000);
    assert.equal((await mnee.balance(alice.address)).amount, 7_500_000 - 1_250_000 - 1000);
    const fee = await mnee.balance(t.service.parts.token.feeAddress);
    assert.equal(fee.amount, 1000);
  });

  it('refuses a second spend of the same outputs with the text newer clients match', async () => {
    const { rawtx } = await mnee.transfer([{ address: bob.address, amount: 1 }], alice.wif, {
      broadcast: false,
    });
    assert.ok(rawtx);
    const first = await mnee.submitRawTx(rawtx);
    assert.ok(first.ticketId);
    const again = await mnee.submitRawTx(rawtx);
    assert.equal(again.ticketId, first.ticketId, 'the same transaction answers the same ticket');
  });
});
