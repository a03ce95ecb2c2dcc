// Parse agrees with the reference client's parseTx / parseTxFromRawTx on every field but
// `environment`: real sandbox transactions, transfers the client builds itself, random
// transfer graphs with the outputs the client reads loosely (rules by hand: parse-tx-rules.test.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PrivateKey } from '@bsv/sdk';
import { fromHex } from '../../src/domain/script-chunks.js';
import { checkParse, realVectors } from '../support/client-agreement.js';
import {
  buildTx,
  FakeMneeApi,
  FEE_TIERS,
  holder,
  SANDBOX_APPROVER,
  SANDBOX_TOKEN_ID,
  tokenScript,
  withClient,
  withClients,
} from '../support/client-fixtures.js';
import { randomTokenGraph } from '../support/random-token-graph.js';

describe('parse agrees with the reference client', () => {
  it('on the real sandbox transactions, by raw transaction and by txid', async () => {
    const api = new FakeMneeApi({
      approver: SANDBOX_APPROVER,
      feeAddress: '1H9wgHCTHjmgBw4PAbQ4PQBQhGFrHWhjbU',
      burnAddress: '1HNuPi9Y7nMV6x8crJ6DnD1wJtkLym8EFE',
      mintAddress: '1AZNdbFYBDFTAEgzZMfPzANxyNrpGJZAUY',
      fees: FEE_TIERS,
      decimals: 5,
      tokenId: SANDBOX_TOKEN_ID,
    });
    const all = Object.entries(realVectors)
      .filter(([k]) => !['source', 'note'].includes(k))
      .flatMap(([, v]) => (Array.isArray(v) ? v : [v]))
      .map(fromHex);
    for (const raw of all) api.addTx(raw);
    const types = new Set<string>();
    let inexact = 0;
    await withClient(api, async (client) => {
      const results = await Promise.all(
        all.flatMap((raw) => [
          checkParse(api, client, raw, 'rawtx'),
          checkParse(api, client, raw, 'txid', false),
        ]),
      );
      for (const r of results) {
        if (!r.exact) inexact++;
        if (r.answer) types.add(`${r.answer.type}:${r.answer.isValid}`);
      }
    });
    // clientValid[0] spends the genesis outputs (known, owned by the client's built-in sandbox
    // mint address): "mint". The others spend unknown outputs: "deploy", valid only for the genesis.
    assert.deepEqual([...types].sort(), ['deploy:false', 'deploy:true', 'mint:true']);
    assert.ok(inexact > 0, 'the 18446744073704500000 change output was compared as a double');
  });

  it('on transfers the client builds itself (sends, fees, change, several recipients, mint, burn)', async () => {
    const key = (name: string) =>
      PrivateKey.fromHex(Buffer.from(holder(name).pkh).toString('hex').padEnd(64, '2'));
    const [alice, bob, mintKey] = ['alice', 'bob', 'mint'].map(key) as [PrivateKey, PrivateKey, PrivateKey];
    const pkh = (k: PrivateKey) => Uint8Array.from(k.toPublicKey().toHash() as number[]);
    const burn = holder('burn');
    const api = new FakeMneeApi({
      approver: SANDBOX_APPROVER,
      feeAddress: holder('fee').address,
      burnAddress: burn.address,
      mintAddress: mintKey.toAddress(),
      fees: FEE_TIERS,
      decimals: 5,
      tokenId: SANDBOX_TOKEN_ID,
    });
    const credit = buildTx(
      [{ txid: 'ab'.repeat(32), vout: 3 }],
      [
        { satoshis: 1n, script: tokenScript(SANDBOX_TOKEN_ID, '2000000', pkh(alice), SANDBOX_APPROVER) },
        { satoshis: 1n, script: tokenScript(SANDBOX_TOKEN_ID, '900000000', pkh(mintKey), SANDBOX_APPROVER) },
      ],
    );
    api.settle(credit, 1);
    const built: Uint8Array[] = [credit];
    const types: string[] = [];
    await withClient(api, async (client) => {
      const transfers: [PrivateKey, { address: string; amount: number }[], object][] = [
        [alice, [{ address: bob.toAddress(), amount: 1.5 }], {}],
        [
          alice,
          [
            { address: bob.toAddress(), amount: 0.1 },
            { address: mintKey.toAddress(), amount: 0.2 },
          ],
          {},
        ],
        [mintKey, [{ address: bob.toAddress(), amount: 50 }], {}],
        [bob, [{ address: burn.address, amount: 2 }], { extraData: [{ type: 'hex', data: 'cafe' }] }],
      ];
      for (const [from, to, options] of transfers) {
        const tx = await client.transfer(to, from.toWif(), { broadcast: false, ...options });
        const raw = fromHex(tx.rawtx!);
        api.settle(raw, 0);
        built.push(raw);
      }
      const results = await Promise.all(
        built.flatMap((raw) => [checkParse(api, client, raw, 'rawtx'), checkParse(api, client, raw, 'txid')]),
      );
      for (const r of results) types.push(`${r.answer?.type}:${r.answer?.isValid}`);
    });
    // The credit spends an unknown output: "deploy" (valid: types other than deploy need equal totals).
    // The transfer out of the configured mint address is a "transfer" for the client: the outputs'
    // type wins, and only its two built-in mint addresses promote a transfer to "mint".
    // The burn carries extraData (an OP_RETURN output): the client calls it invalid.
    assert.deepEqual(
      types.filter((_t, i) => i % 2 === 0),
      ['deploy:true', 'transfer:true', 'transfer:true', 'transfer:true', 'transfer:false'],
    );
  });

  it('on random transfer graphs', async () => {
    const graphs = Array.from({ length: 24 }, (_v, i) =>
      randomTokenGraph({ seed: 100 + i, steps: 14, odd: i % 3 !== 0 }),
    );
    const seen = new Map<string, number>();
    let cases = 0;
    await withClients(
      graphs.map((g) => g.api),
      async (clients) => {
        const checks = graphs.flatMap((g, i) =>
          g.txids.map((txid, n) =>
            checkParse(g.api, clients[i]!, g.api.transactions.get(txid)!, n % 2 ? 'txid' : 'rawtx'),
          ),
        );
        for (const r of await Promise.all(checks)) {
          cases++;
          const key = r.answer ? `${r.answer.type}:${r.answer.isValid}` : 'threw';
          seen.set(key, (seen.get(key) ?? 0) + 1);
        }
      },
    );
    assert.ok(cases > 300, `${cases} cases`);
    for (const key of [
      'transfer:true',
      'transfer:false',
      'mint:true',
      'burn:true',
      'deploy:true',
      'redeem:true',
      'threw',
    ]) {
      assert.ok(seen.has(key), `${key} not exercised: ${[...seen].join(' ')}`);
    }
  });
});
