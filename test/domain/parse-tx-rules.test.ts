// The parse rules spelled out by hand, each also asked of the reference client where it matters.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DomainError } from '../../src/domain/domain-error.js';
import { sourceTxidsOf } from '../../src/domain/parse-source-outputs.js';
import { parseTransaction } from '../../src/domain/parse-tx.js';
import { concatBytes, toHex } from '../../src/domain/script-chunks.js';
import { checkParse, parseConfigOf, parseOurs } from '../support/client-agreement.js';
import {
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
} from '../support/client-fixtures.js';

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
    const parsed = parseOurs(api, spend([out(bob, '900'), out(fee, '100')]), false);
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
    assert.equal(parseOurs(api, orphan).type, 'deploy');
    assert.equal(parseOurs(api, spend([out(bob, '999')])).isValid, false);
    assert.equal(parseOurs(api, spend([out(mint, '1000')])).type, 'mint');
  });

  it('calls a transfer with an OP_RETURN output invalid, as the client does', async () => {
    const raw = spend([out(bob, '900'), out(fee, '100'), { satoshis: 0n, script: opReturn('memo') }]);
    assert.equal(parseOurs(api, raw).isValid, false);
    await withClient(api, async (client) => {
      assert.equal((await client.parseTxFromRawTx(toHex(raw))).isValid, false);
    });
  });

  it('reports amounts parseInt cannot read as null, and fails where the client`s BigInt throws', async () => {
    const unreadable = spend([out(bob, 'abc')]);
    assert.throws(() => parseOurs(api, unreadable), DomainError);
    const hex = spend([out(bob, '0x10'), out(fee, ' 7')]);
    const parsed = parseOurs(api, hex);
    assert.deepEqual(
      parsed.outputs.map((o) => o.amount),
      [16n, 7n],
    );
    const p2pkhTokenNaN = concatBytes([envelope(tokenJson(SANDBOX_TOKEN_ID, 'x')), opReturn('not an owner')]);
    const nan = parseOurs(api, spend([out(bob, '1000'), { satoshis: 1n, script: p2pkhTokenNaN }]));
    assert.equal(nan.raw?.outputs[1]?.tokenData?.amount, null);
    await withClient(api, async (client) => {
      await assert.rejects(client.parseTxFromRawTx(toHex(unreadable)));
    });
  });

  it('hashes the client`s re-encoding when an output script has a push running past its end', async () => {
    const truncated = concatBytes([cosignLock(bob.pkh, SANDBOX_APPROVER), Uint8Array.of(0x4c, 0x09, 0x01)]);
    const raw = spend([out(bob, '1000'), { satoshis: 0n, script: truncated }]);
    const parsed = parseOurs(api, raw);
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
    assert.equal(parseOurs(genesisApi, genesis).type, 'deploy');
    await withClient(genesisApi, async (client) => {
      assert.ok((await checkParse(genesisApi, client, genesis, 'txid')).exact);
    });
  });

  it('refuses bytes that are not one transaction', () => {
    const raw = spend([out(bob, '1000')]);
    for (const bad of [raw.slice(0, -1), concatBytes([raw, Uint8Array.of(0)]), Uint8Array.of(1, 0, 0)]) {
      assert.throws(
        () => parseTransaction(bad, new Map(), parseConfigOf(api), 'sandbox'),
        (err: unknown) => err instanceof DomainError && err.code === 'INVALID_TX',
      );
    }
    assert.deepEqual(sourceTxidsOf(raw), [sourceTxid]);
  });

  it('fails, as the client does, on an input naming an output its known source does not have', async () => {
    const raw = buildTx([{ txid: sourceTxid, vout: 5 }], [out(bob, '1000')]);
    assert.throws(() => api.sourceOutputs(raw), DomainError);
    await withClient(api, async (client) => {
      await assert.rejects(client.parseTxFromRawTx(toHex(raw)));
    });
  });
});
