// The devnet's ARC API over real HTTP on 127.0.0.1: ARC's routes, bodies, numbers and callbacks.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MerklePath } from '@bsv/sdk';
import { type ArcServer, startArcServer } from '../../src/ledger/devnet/arc-http-server.js';
import { createDevnet, type Devnet } from '../../src/ledger/devnet/devnet.js';
import { type CallbackReceiver, startCallbackReceiver } from './callback-receiver.js';
import { readHeader } from './chain-check.js';
import {
  alice,
  bob,
  confirmedCoinOf,
  genesisCoins,
  genesisOption,
  type Spendable,
  spend,
} from './fixtures.js';

const API_KEY = 'devnet-test-key';

describe('devnet ARC API', () => {
  let devnet: Devnet;
  let server: ArcServer;
  let receiver: CallbackReceiver;
  let coins: Spendable[];

  const call = async (
    method: string,
    path: string,
    body?: string | Uint8Array,
    headers: Record<string, string> = {},
  ) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${API_KEY}`, ...headers },
      ...(body !== undefined && { body }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const hex = (raw: Uint8Array) => Buffer.from(raw).toString('hex');

  before(async () => {
    devnet = await createDevnet({ genesis: genesisOption, blockIntervalMs: 0, feeRateSatPerKb: 50n });
    server = await startArcServer({ devnet, apiKey: API_KEY, callbacks: { retryDelayMs: 10 } });
    receiver = await startCallbackReceiver();
    coins = genesisCoins(devnet);
  });
  after(async () => {
    await server.close();
    await receiver.close();
    await devnet.close();
  });

  it('answers 401 without the bearer token', async () => {
    const res = await fetch(`${server.url}/v1/health`);
    assert.equal(res.status, 401);
    assert.equal(((await res.json()) as { status: number }).status, 401);
  });

  it('serves health and policy as ARC shapes them', async () => {
    assert.deepEqual((await call('GET', '/v1/health')).body, {
      healthy: true,
      version: 'tokenproxy-devnet',
      reason: null,
    });
    const policy = await call('GET', '/v1/policy');
    assert.equal(policy.status, 200);
    assert.deepEqual((policy.body.policy as Record<string, unknown>).miningFee, {
      satoshis: 50,
      bytes: 1000,
    });
  });

  it('takes a transaction as text/plain hex, {"rawTx"} JSON and octet-stream bytes', async () => {
    const a = await spend([coins[0]!], [{ to: bob, satoshis: 99_000n }]);
    const b = await spend([a.out(0)], [{ to: alice, satoshis: 98_000n }]);
    const c = await spend([b.out(0)], [{ to: bob, satoshis: 97_000n }]);
    const ra = await call('POST', '/v1/tx', hex(a.raw), { 'content-type': 'text/plain' });
    assert.equal(ra.status, 200);
    assert.equal(ra.body.txStatus, 'SEEN_ON_NETWORK');
    assert.equal(ra.body.txid, a.txid);
    assert.equal(ra.body.title, 'OK');
    const rb = await call('POST', '/v1/tx', JSON.stringify({ rawTx: hex(b.raw) }), {
      'content-type': 'application/json',
    });
    assert.equal(rb.body.txStatus, 'SEEN_ON_NETWORK');
    const rc = await call('POST', '/v1/tx', c.raw, { 'content-type': 'application/octet-stream' });
    assert.equal(rc.body.txid, c.txid);
    // Resubmitting answers the current status.
    assert.equal((await call('POST', '/v1/tx', hex(a.raw))).body.txStatus, 'SEEN_ON_NETWORK');
  });

  it('answers refusals as problems with the 46x number, 466 with the competing txids', async () => {
    const winner = await spend([coins[1]!], [{ to: bob, satoshis: 49_000n }]);
    const loser = await spend([coins[1]!], [{ to: alice, satoshis: 48_000n }]);
    await call('POST', '/v1/tx', hex(winner.raw));
    const conflict = await call('POST', '/v1/tx', hex(loser.raw));
    assert.equal(conflict.status, 466);
    assert.equal(conflict.body.status, 466);
    assert.equal(conflict.body.title, 'Conflicting tx found');
    assert.equal(conflict.body.txid, loser.txid);
    assert.deepEqual(conflict.body.competingTxs, [winner.txid]);
    const dsa = await call('GET', `/v1/tx/${loser.txid}`);
    assert.equal(dsa.body.txStatus, 'DOUBLE_SPEND_ATTEMPTED');
    const badScript = await spend([coins[2]!], [{ to: bob, satoshis: 99_000n }], { signer: alice });
    assert.equal((await call('POST', '/v1/tx', hex(badScript.raw))).status, 461);
    assert.equal((await call('POST', '/v1/tx', 'nothex')).status, 463);
    assert.equal((await call('POST', '/v1/tx', '{', { 'content-type': 'application/json' })).status, 400);
    const unknown = await call('GET', `/v1/tx/${'ef'.repeat(32)}`);
    assert.equal(unknown.status, 404);
  });

  it('submits a batch on /v1/txs and answers one entry per transaction', async () => {
    const a = await spend([coins[3]!], [{ to: alice, satoshis: 19_000n }]);
    const b = await spend([a.out(0)], [{ to: bob, satoshis: 18_000n }]);
    const r = await call('POST', '/v1/txs', `${hex(a.raw)}\n${hex(b.raw)}\nzz\n`);
    assert.equal(r.status, 200);
    assert.deepEqual(
      (r.body as unknown as Array<Record<string, unknown>>).map((x) => x.txStatus ?? x.status),
      ['SEEN_ON_NETWORK', 'SEEN_ON_NETWORK', 463],
    );
    const c = await spend([b.out(0)], [{ to: alice, satoshis: 17_000n }]);
    const d = await spend([c.out(0)], [{ to: bob, satoshis: 16_000n }]);
    const bytes = Uint8Array.from([...c.raw, ...d.raw]);
    const rb = await call('POST', '/v1/txs', bytes, { 'content-type': 'application/octet-stream' });
    assert.deepEqual(
      (rb.body as unknown as Array<Record<string, unknown>>).map((x) => x.txid),
      [c.txid, d.txid],
    );
  });

  it('mines on /devnet/mine and then answers MINED with a BUMP of the block', async () => {
    const mempool = devnet.mempoolTxids();
    const mined = await call('POST', '/devnet/mine?blocks=1');
    const block = (mined.body.blocks as Array<{ height: number; hash: string }>)[0]!;
    const status = await call('GET', `/v1/tx/${mempool[0]}`);
    assert.equal(status.body.txStatus, 'MINED');
    assert.equal(status.body.blockHash, block.hash);
    assert.equal(status.body.blockHeight, block.height);
    const root = readHeader(devnet.blocks()[block.height]!).merkleRoot;
    assert.equal(MerklePath.fromHex(status.body.merklePath as string).computeRoot(mempool[0]), root);
    assert.deepEqual((await call('GET', '/devnet/tip')).body, {
      height: block.height,
      hash: block.hash,
      time: devnet.blocks()[block.height]!.time,
    });
  });

  it('calls back as ARC does: bearer token, MINED_IN_STALE_BLOCK then MINED on a reorg, SEEN only with full updates', async () => {
    assert.deepEqual(devnet.mempoolTxids(), []);
    const tx = await spend([confirmedCoinOf(devnet, bob)], [{ to: alice, satoshis: 1000n }]);
    const headers = {
      'x-callbackurl': receiver.url,
      'x-callbacktoken': 'cb-secret',
      'x-fullstatusupdates': 'true',
    };
    assert.equal((await call('POST', '/v1/tx', hex(tx.raw), headers)).status, 200);
    const seen = await receiver.waitFor(
      (c) => c.body.txid === tx.txid && c.body.txStatus === 'SEEN_ON_NETWORK',
    );
    assert.equal(seen.authorization, 'Bearer cb-secret');
    await call('POST', '/devnet/mine');
    await receiver.waitFor((c) => c.body.txid === tx.txid && c.body.txStatus === 'MINED');
    const reorg = await call('POST', '/devnet/reorg?depth=1');
    const newHash = (reorg.body.connected as Array<{ hash: string }>)[0]!.hash;
    const remined = await receiver.waitFor((c) => c.body.txid === tx.txid && c.body.blockHash === newHash);
    const order = receiver.received.filter((c) => c.body.txid === tx.txid).map((c) => c.body.txStatus);
    assert.deepEqual(order, ['SEEN_ON_NETWORK', 'MINED', 'MINED_IN_STALE_BLOCK', 'MINED']);
    assert.equal(remined.body.blockHeight, devnet.blocks().length - 1);
    assert.equal(typeof remined.body.merklePath, 'string');
  });

  it('without X-FullStatusUpdates calls back MINED only, not SEEN_ON_NETWORK', async () => {
    await call('POST', '/devnet/mine');
    const coin = confirmedCoinOf(devnet, bob, 500n);
    const tx = await spend([coin], [{ to: alice, satoshis: coin.satoshis - 100n }]);
    const headers = { 'x-callbackurl': receiver.url, 'x-callbacktoken': 'quiet' };
    assert.equal((await call('POST', '/v1/tx', hex(tx.raw), headers)).status, 200);
    await call('POST', '/devnet/mine');
    await receiver.waitFor((c) => c.body.txid === tx.txid && c.body.txStatus === 'MINED');
    const statuses = receiver.received.filter((c) => c.body.txid === tx.txid).map((c) => c.body.txStatus);
    assert.deepEqual(statuses, ['MINED']);
  });
});
