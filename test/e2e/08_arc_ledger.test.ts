// tokenproxy on a real ledger API: the ARC adapter over HTTP against the devnet's ARC server
// (in this process, on 127.0.0.1). The operator names a coin of the funding key; the service
// deploys the token from it, and transfers go to MINED through ARC's status answers.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Mnee from '@mnee/ts-sdk';
import { toHex } from '../../src/domain/script-chunks.js';
import type { Devnet } from '../../src/ledger/devnet/devnet.js';
import { type Ledger, startLedger } from '../support/ledger-world.js';
import { party } from '../support/token-world.js';
import { eventually, redirectClientTo, startTestService, type TestService } from './support.js';

describe('tokenproxy over ARC (the devnet behind its ARC API)', () => {
  // startLedger('arc') gives the operator these keys (and the flags naming them).
  const approver = party('arc approver');
  let ledger: Ledger;
  let devnet: Devnet;
  let t: TestService;
  let restore: () => void;
  const alice = party('arc alice');
  const bob = party('arc bob');

  const admin = (path: string, body?: unknown) =>
    fetch(`${t.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as Record<string, unknown> }));

  before(async () => {
    ledger = await startLedger('arc');
    devnet = ledger.devnet;
    t = await startTestService([...ledger.flags, '--tracker-poll-ms', '200']);
    restore = redirectClientTo(t.url);
  });

  after(async () => {
    restore?.();
    await t?.stop();
    await ledger?.close();
  });

  it('deploys the token from the named coin and follows the deploy to MINED', async () => {
    const tokenTxid = t.service.parts.token.tokenId.split('_')[0]!;
    assert.equal((await devnet.status(tokenTxid)).kind, 'mempool', 'the deploy went to the ledger');
    await devnet.mine(1);
    await eventually(async () => {
      const rows = await t.service.parts.db.query<{ state: string }>(
        'SELECT state FROM transactions WHERE txid = $1',
        [tokenTxid],
      );
      return rows[0]?.state === 'mined' ? true : undefined;
    }, 'the deploy recorded as mined');
    assert.equal(t.service.parts.token.approver, toHex(approver.publicKey));
  });

  it('mints, and a reference-client transfer reaches MINED through ARC', async () => {
    const minted = await admin('/v2/admin/mint', { to: alice.address, amount: '50' });
    assert.equal(minted.status, 200, JSON.stringify(minted.body));
    await devnet.mine(1);
    const mnee = new Mnee({ environment: 'sandbox', apiKey: t.adminKey });
    assert.equal((await mnee.balance(alice.address)).amount, 5_000_000);

    const { ticketId } = await mnee.transfer([{ address: bob.address, amount: 20 }], alice.wif);
    assert.ok(ticketId);
    await eventually(
      async () => ((await mnee.getTxStatus(ticketId)).status === 'SUCCESS' ? true : undefined),
      'SUCCESS',
    );
    await devnet.mine(1);
    const mined = await eventually(async () => {
      const status = await mnee.getTxStatus(ticketId);
      return status.status === 'MINED' ? status : undefined;
    }, 'MINED');
    assert.equal((await devnet.status(mined.tx_id)).kind, 'mined');
    assert.equal((await mnee.balance(bob.address)).amount, 2_000_000);
  });
});
