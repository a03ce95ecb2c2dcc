// Parse agrees with the reference client's parseTx / parseTxFromRawTx on every field but
// `environment`: real sandbox transactions, transfers the client builds itself, random
// transfer graphs with the outputs the client reads loosely; plus the rules spelled out.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { PrivateKey } from '@bsv/sdk';
import type Mnee from '@mnee/ts-sdk';
import type { ClientTokenConfig } from '../../src/domain/client-script-reading.js';
import { type ParseResponse, parseTransaction, sourceTxidsOf } from '../../src/domain/parse-tx.js';
import { concatBytes, fromHex, toHex } from '../../src/domain/script-chunks.js';
import { AppError } from '../../src/errors/registry.js';
import { agrees, type Outcome } from '../support/client-agreement.js';
import {
  asClientJson,
  buildTx,
  cosignLock,
  envelope,
  FakeMneeApi,
  FEE_TIERS,
  holder,
  opReturn,
  SANDBOX_APPROVER,
  SANDBOX_TOKEN_ID,
  tokenJson,
  tokenScript,
  txidOf,
  withClient,
  withClients,
} from '../support/client-fixtures.js';
import { randomTokenGraph } from '../support/random-token-graph.js';

const vectors = JSON.parse(
  readFileSync(new URL('../../../shared/vectors/mnee-real-transactions.json', import.meta.url), 'utf8'),
) as Record<string, string | string[]>;

const configOf = (api: FakeMneeApi): ClientTokenConfig => ({
  tokenId: api.config.tokenId,
  approver: api.config.approver,
  feeAddress: api.config.feeAddress,
  mintAddress: api.config.mintAddress,
});

function ours(api: FakeMneeApi, raw: Uint8Array, includeRaw = true): ParseResponse {
  return parseTransaction(raw, api.sourceOutputs(raw), configOf(api), 'sandbox', { includeRaw });
}

/** Our answer without what the client does not produce (environment aside, compared by nobody). */
function comparable(response: ParseResponse): unknown {
  const { environment: _e, raw, ...rest } = response;
  if (raw === undefined) return asClientJson(rest);
  const { version, lockTime, size, hash, ...clientRaw } = raw;
  assert.equal(hash, response.txid);
  assert.equal(size * 2, raw.txHex.length);
  assert.equal(version, Number.parseInt(raw.txHex.slice(0, 8).match(/../g)!.reverse().join(''), 16));
  assert.equal(lockTime, Number.parseInt(raw.txHex.slice(-8).match(/../g)!.reverse().join(''), 16));
  return asClientJson({ ...rest, raw: clientRaw });
}

async function outcome(fn: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { value: await fn() };
  } catch {
    return { threw: true };
  }
}

async function checkParse(
  api: FakeMneeApi,
  client: Mnee,
  raw: Uint8Array,
  via: 'rawtx' | 'txid',
  includeRaw = true,
): Promise<{ exact: boolean; answer?: ParseResponse }> {
  const theirs = await outcome(async () => {
    const parsed =
      via === 'rawtx'
        ? await client.parseTxFromRawTx(toHex(raw), { includeRaw })
        : await client.parseTx(txidOf(raw), { includeRaw });
    const { environment: _e, ...rest } = parsed;
    return asClientJson(rest);
  });
  let answer: ParseResponse | undefined;
  const mine = await outcome(async () => {
    answer = ours(api, raw, includeRaw);
    return comparable(answer);
  });
  const exact = agrees(mine, theirs, `${via} ${toHex(raw)}`);
  return answer === undefined ? { exact } : { exact, answer };
}

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
    const all = Object.entries(vectors)
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

describe('parse rules', () => {
  const [alice, bob, fee, mint] = ['alice', 'bob', 'fee', 'mint'].map(holder) as [
    ReturnType<typeof holder>,
    ReturnType<typeof holder>,
    ReturnType<typeof holder>,
    ReturnType<typeof holder>,
  ];
  const api = new FakeMneeApi({
    approver: SANDBOX_APPROVER,
    feeAddress: fee.address,
    burnAddress: holder('burn').address,
    mintAddress: mint.address,
    fees: FEE_TIERS,
    decimals: 5,
    tokenId: SANDBOX_TOKEN_ID,
  });
  const source = buildTx(
    [{ txid: '11'.repeat(32), vout: 0 }],
    [{ satoshis: 1n, script: tokenScript(SANDBOX_TOKEN_ID, '1000', alice.pkh, SANDBOX_APPROVER) }],
  );
  const sourceTxid = api.addTx(source);
  const out = (who: { pkh: Uint8Array }, amt: unknown) => ({
    satoshis: 1n,
    script: concatBytes([envelope(tokenJson(SANDBOX_TOKEN_ID, amt)), cosignLock(who.pkh, SANDBOX_APPROVER)]),
  });
  const spend = (outputs: { satoshis: bigint; script: Uint8Array }[]) =>
    buildTx([{ txid: sourceTxid, vout: 0 }], outputs);

  it('reads a conserving cosigned transfer as valid, with totals as strings', () => {
    const parsed = ours(api, spend([out(bob, '900'), out(fee, '100')]), false);
    assert.equal(parsed.type, 'transfer');
    assert.equal(parsed.isValid, true);
    assert.deepEqual(parsed.inputs, [{ address: alice.address, amount: 1000n }]);
    assert.deepEqual(parsed.outputs, [
      { address: bob.address, amount: 900n },
      { address: fee.address, amount: 100n },
    ]);
    assert.equal(parsed.inputTotal, '1000');
    assert.equal(parsed.outputTotal, '1000');
    assert.equal(parsed.raw, undefined);
    assert.equal(parsed.environment, 'sandbox');
  });

  it('is "deploy" when no input source is known, and invalid when totals differ', () => {
    const orphan = buildTx([{ txid: '22'.repeat(32), vout: 0 }], [out(bob, '900')]);
    assert.equal(ours(api, orphan).type, 'deploy');
    assert.equal(ours(api, spend([out(bob, '999')])).isValid, false);
    assert.equal(ours(api, spend([out(mint, '1000')])).type, 'mint');
  });

  it('calls a transfer with an OP_RETURN output invalid, as the client does', async () => {
    const raw = spend([out(bob, '900'), out(fee, '100'), { satoshis: 0n, script: opReturn('memo') }]);
    assert.equal(ours(api, raw).isValid, false);
    await withClient(api, async (client) => {
      assert.equal((await client.parseTxFromRawTx(toHex(raw))).isValid, false);
    });
  });

  it('reports amounts parseInt cannot read as null, and fails where the client`s BigInt throws', async () => {
    const unreadable = spend([out(bob, 'abc')]);
    assert.throws(() => ours(api, unreadable), AppError);
    const hex = spend([out(bob, '0x10'), out(fee, ' 7')]);
    const parsed = ours(api, hex);
    assert.deepEqual(
      parsed.outputs.map((o) => o.amount),
      [16n, 7n],
    );
    const p2pkhTokenNaN = concatBytes([envelope(tokenJson(SANDBOX_TOKEN_ID, 'x')), opReturn('not an owner')]);
    const nan = ours(api, spend([out(bob, '1000'), { satoshis: 1n, script: p2pkhTokenNaN }]));
    assert.equal(nan.raw?.outputs[1]?.tokenData?.amount, null);
    await withClient(api, async (client) => {
      await assert.rejects(client.parseTxFromRawTx(toHex(unreadable)));
    });
  });

  it('hashes the client`s re-encoding when an output script has a push running past its end', async () => {
    const truncated = concatBytes([cosignLock(bob.pkh, SANDBOX_APPROVER), Uint8Array.of(0x4c, 0x09, 0x01)]);
    const raw = spend([out(bob, '1000'), { satoshis: 0n, script: truncated }]);
    const parsed = ours(api, raw);
    assert.notEqual(parsed.txid, txidOf(raw));
    await withClient(api, async (client) => {
      assert.equal((await client.parseTxFromRawTx(toHex(raw))).txid, parsed.txid);
    });
  });

  it('lets a deploy+mint output decide the genesis type, even after another output', async () => {
    const deployMint = JSON.stringify({ p: 'bsv-20', op: 'deploy+mint', amt: '1000', dec: '5' });
    const genesis = buildTx(
      [{ txid: sourceTxid, vout: 0 }],
      [
        out(bob, '5'),
        { satoshis: 1n, script: concatBytes([envelope(deployMint), cosignLock(mint.pkh, SANDBOX_APPROVER)]) },
      ],
    );
    const genesisApi = new FakeMneeApi({ ...api.config, tokenId: `${txidOf(genesis)}_0` });
    genesisApi.addTx(source);
    genesisApi.addTx(genesis);
    assert.equal(ours(genesisApi, genesis).type, 'deploy');
    await withClient(genesisApi, async (client) => {
      assert.ok((await checkParse(genesisApi, client, genesis, 'txid')).exact);
    });
  });

  it('refuses bytes that are not one transaction', () => {
    const raw = spend([out(bob, '1000')]);
    for (const bad of [raw.slice(0, -1), concatBytes([raw, Uint8Array.of(0)]), Uint8Array.of(1, 0, 0)]) {
      assert.throws(
        () => parseTransaction(bad, new Map(), configOf(api), 'sandbox'),
        (err: unknown) => err instanceof AppError && err.code === 'INVALID_TX',
      );
    }
    assert.deepEqual(sourceTxidsOf(raw), [sourceTxid]);
  });

  it('fails, as the client does, on an input naming an output its known source does not have', async () => {
    const raw = buildTx([{ txid: sourceTxid, vout: 5 }], [out(bob, '1000')]);
    assert.throws(() => api.sourceOutputs(raw), AppError);
    await withClient(api, async (client) => {
      await assert.rejects(client.parseTxFromRawTx(toHex(raw)));
    });
  });
});
