// Over a real server, on each database: the issuer's amount limits hold when the recipient
// cosigns an input of its own (what it gains beyond that input counts as sent, as for the fee
// tier), and a seizure naming an output index past what a token output can have is refused
// (409 SEIZURE_REFUSED), not a 500.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { Transaction, UnlockingScript } from '@bsv/sdk';
import { pubKeyHashOf } from '../../src/domain/address.js';
import { signOwnerInputs } from '../../src/domain/sign-owner.js';
import { createApiKey } from '../../src/store/access/api-keys-store.js';
import { http, utxosOf } from '../e2e/e2e-http.js';
import { buildTransfer, tokenOutput } from '../support/build-transfer.js';
import { fundHolders } from '../support/fund-holders.js';
import { describeServiceOnEachDb } from '../support/service-on-each-db.js';
import { lockingFrom, type Party, party } from '../support/token-world.js';

const TRANSFER_LIMIT = 50_000n;
const DAILY_LIMIT = 80_000n;

describeServiceOnEachDb(
  'limits with a cosigned input, and a seizure past the last vout',
  ['--transfer-limit', String(TRANSFER_LIMIT), '--daily-limit-per-address', String(DAILY_LIMIT)],
  (suite) => {
    let key: string;
    const url = () => suite.t.url;
    const admin = (method: string, path: string, body?: unknown) =>
      http(url(), method, path, { key: suite.t.adminKey, body });
    const fund = (holders: readonly Party[], amount: bigint) => fundHolders(suite.t, key, holders, amount);

    before(async () => {
      const { parts } = suite.t.service;
      ({ key } = await createApiKey(parts.db, parts.masterKey, {
        name: 'wallet',
        scopes: ['read', 'submit'],
      }));
    });

    it('transferLimit and the daily limit hold when the recipient co-signs a tiny input', async () => {
      const { token } = suite.t.service.parts.ctx;
      const sender = party(`dodge sender ${suite.target}`);
      const receiver = party(`dodge receiver ${suite.target}`);
      await fund([sender], 500_000n);
      await fund([receiver], 1_000n);
      // Plain transfer of 200,000 (4x the per-transfer limit): refused, as promised.
      const sIn = await utxosOf(url(), key, sender.address);
      const rIn = await utxosOf(url(), key, receiver.address);
      const out = (owner: Party | Uint8Array, amt: bigint) =>
        tokenOutput(owner, amt, token.tokenId, token.approver);
      const feePkh = pubKeyHashOf(token.feeAddress)!;
      const plain = buildTransfer({
        inputs: sIn,
        outputs: [out(receiver, 200_000n), out(feePkh, 100n), out(sender, 500_000n - 200_000n - 100n)],
        signer: sender,
      });
      const refused = await http(url(), 'POST', '/v2/transfer', {
        key,
        body: { rawtx: Buffer.from(plain).toString('base64') },
      });
      assert.equal(refused.status, 403, refused.text);
      // The same move with the receiver adding its own 1,000-unit input, signed by each owner.
      const inputs = [...sIn, ...rIn];
      const tx = new Transaction(1, [], [], 0);
      for (const i of inputs)
        tx.addInput({
          sourceTXID: i.txid,
          sourceOutputIndex: i.vout,
          unlockingScript: new UnlockingScript(),
          sequence: 0xffffffff,
        });
      for (const o of [
        out(receiver, 200_000n + 1_000n),
        out(feePkh, 100n),
        out(sender, 500_000n - 200_000n - 100n),
      ])
        tx.addOutput({ satoshis: Number(o.satoshis), lockingScript: lockingFrom(o.script) });
      signOwnerInputs(tx, inputs, sender.privateKey);
      const senderUnlocks = sIn.map((_, i) => tx.inputs[i]!.unlockingScript);
      signOwnerInputs(tx, inputs, receiver.privateKey);
      for (const [i, u] of senderUnlocks.entries()) tx.inputs[i]!.unlockingScript = u;
      const dodged = await http(url(), 'POST', '/v2/transfer', {
        key,
        body: { rawtx: Buffer.from(tx.toUint8Array()).toString('base64') },
      });
      // The sender moves 200,000 units to another holder: 4x transferLimit, 2.5x its daily limit.
      assert.equal(
        dodged.status,
        403,
        `a transfer of 200,000 units to another holder (limit ${TRANSFER_LIMIT}) was accepted: ${dodged.text}`,
      );
    });

    it('a seizure naming an outpoint whose vout is beyond 32 bits is a 4xx, not a 500', async () => {
      const owner = party(`vout owner ${suite.target}`);
      const answer = await admin('POST', '/v2/admin/seizures', {
        reference: `vout overflow ${suite.target}`,
        reason: 'a vout past 32 bits',
        outpoints: [`${'ab'.repeat(32)}_4294967296`],
        reissueTo: owner.address,
      });
      assert.equal(answer.status, 409, answer.text);
      assert.equal((answer.json as { code: string }).code, 'SEIZURE_REFUSED');
      assert.match((answer.json as { detail: string }).detail, /is not a known token output/);
    });
  },
);
