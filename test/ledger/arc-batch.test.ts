// Broadcasting several transactions at once, over real HTTP on 127.0.0.1: the devnet's ARC
// POST /v1/txs in both body formats (JSON array, text/plain hex lines), with batched callbacks
// (X-CallbackBatch), and the arc adapter's broadcastMany against it: a mixed batch with one
// refusal mapped per item, a retry that resends the same bytes, a batch ARC refuses whole.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ArcLedger, createArcLedger } from '../../src/ledger/arc/arc-ledger.js';
import { type ArcServer, startArcServer } from '../../src/ledger/devnet/arc-http-server.js';
import { createDevnet, type Devnet } from '../../src/ledger/devnet/devnet.js';
import { type CallbackReceiver, startCallbackReceiver } from './callback-receiver.js';
import { alice, bob, genesisCoins, genesisOption, type Spendable, spend } from './fixtures.js';

const API_KEY = 'batch-key';

describe('broadcasting in batches', () => {
  let devnet: Devnet;
  let server: ArcServer;
  let receiver: CallbackReceiver;
  let coins: Spendable[];
  const hex = (raw: Uint8Array) => Buffer.from(raw).toString('hex');
  const post = async (body: string, headers: Record<string, string>) => {
    const res = await fetch(`${server.url}/v1/txs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, ...headers },
      body,
    });
    return { status: res.status, body: (await res.json()) as Array<Record<string, unknown>> };
  };

  before(async () => {
    devnet = await createDevnet({ genesis: genesisOption, blockIntervalMs: 0, feeRateSatPerKb: 50n });
    server = await startArcServer({
      devnet,
      apiKey: API_KEY,
      callbacks: { retryDelayMs: 10, batchWindowMs: 30 },
    });
    receiver = await startCallbackReceiver();
    coins = genesisCoins(devnet);
  });
  after(async () => {
    await server.close();
    await receiver.close();
    await devnet.close();
  });

  it('devnet POST /v1/txs takes a JSON array: statuses in order, a chain and a refusal among them', async () => {
    const a = await spend([coins[0]!], [{ to: alice, satoshis: 90_000n }]);
    const child = await spend([a.out(0)], [{ to: bob, satoshis: 89_000n }]);
    const rival = await spend([a.out(0)], [{ to: alice, satoshis: 88_000n }]);
    const r = await post(
      JSON.stringify([{ rawTx: hex(a.raw) }, { rawTx: hex(child.raw) }, { rawTx: hex(rival.raw) }, {}]),
      { 'content-type': 'application/json' },
    );
    assert.equal(r.status, 200);
    assert.deepEqual(
      r.body.map((x) => [x.txid, x.txStatus ?? null, x.status]),
      [
        [a.txid, 'SEEN_ON_NETWORK', 200],
        [child.txid, 'SEEN_ON_NETWORK', 200],
        [rival.txid, null, 466],
        [null, null, 463],
      ],
    );
    assert.deepEqual(r.body[2]!.competingTxs, [child.txid]);
    // Same shape as POST /v1/tx's answer.
    assert.deepEqual(Object.keys(r.body[0]!).sort(), [
      'blockHash',
      'blockHeight',
      'competingTxs',
      'extraInfo',
      'merklePath',
      'status',
      'timestamp',
      'title',
      'txStatus',
      'txid',
    ]);
  });

  it('devnet POST /v1/txs takes text/plain hex lines and calls back in batches with X-CallbackBatch', async () => {
    const one = await spend([coins[1]!], [{ to: bob, satoshis: 49_000n }]);
    const two = await spend([coins[2]!], [{ to: alice, satoshis: 99_000n }]);
    const r = await post(`${hex(one.raw)}\n${hex(two.raw)}\n`, {
      'content-type': 'text/plain',
      'x-callbackurl': receiver.url,
      'x-callbacktoken': 'batch-secret',
      'x-callbackbatch': 'true',
    });
    assert.deepEqual(
      r.body.map((x) => [x.txid, x.txStatus]),
      [
        [one.txid, 'SEEN_ON_NETWORK'],
        [two.txid, 'SEEN_ON_NETWORK'],
      ],
    );
    const [block] = await devnet.mine(1);
    const batch = await receiver.waitFor((c) => Array.isArray(c.body.callbacks));
    assert.equal(batch.authorization, 'Bearer batch-secret');
    const callbacks = batch.body.callbacks as Array<Record<string, unknown>>;
    assert.equal(batch.body.count, callbacks.length);
    assert.deepEqual(
      callbacks.map((c) => [c.txid, c.txStatus, c.blockHash]).sort(),
      [
        [one.txid, 'MINED', block!.hash],
        [two.txid, 'MINED', block!.hash],
      ].sort(),
      'both MINED statuses in one POST',
    );
  });

  describe('arc adapter broadcastMany', () => {
    const ledgers: ArcLedger[] = [];
    after(async () => {
      for (const l of ledgers) await l.close();
    });
    const open = (extra: Partial<Parameters<typeof createArcLedger>[0]> = {}) => {
      const l = createArcLedger({ url: server.url, apiKey: API_KEY, retries: 2, retryDelayMs: 5, ...extra });
      ledgers.push(l);
      return l;
    };

    it('maps a mixed batch per item, in the order given, with one refusal', async () => {
      const coin = devnet.utxos().find((u) => u.satoshis === 20_000n)!;
      const base = { txid: coin.txid, vout: coin.vout, satoshis: coin.satoshis, key: bob };
      const good = await spend([base], [{ to: alice, satoshis: 19_000n }]);
      const next = await spend([good.out(0)], [{ to: bob, satoshis: 18_000n }]);
      const tooCheap = await spend([next.out(0)], [{ to: bob, satoshis: 17_999n }]);
      const results = await open().broadcastMany([good.raw, next.raw, tooCheap.raw, good.raw]);
      assert.deepEqual(results.slice(0, 2), [
        { ok: true, txid: good.txid, status: { kind: 'mempool' } },
        { ok: true, txid: next.txid, status: { kind: 'mempool' } },
      ]);
      assert.equal(results[2]!.ok, false);
      assert.equal(results[2]!.txid, tooCheap.txid);
      assert.equal(results[2]!.ok === false && results[2]!.arcCode, 465);
      assert.equal(results[2]!.ok === false && results[2]!.retryable, false);
      assert.deepEqual(results[3], results[0], 'the same transaction twice: the same answer');
      assert.equal((await devnet.status(tooCheap.txid)).kind, 'unknown');
    });

    it('retries the batch with the same bytes after a failed attempt', async () => {
      const bodies: string[] = [];
      let failFirst = true;
      const flaky: typeof fetch = async (input, init) => {
        if (String(input).endsWith('/v1/txs')) {
          bodies.push(String(init?.body));
          if (failFirst) {
            failFirst = false;
            return new Response('busy', { status: 503 });
          }
        }
        return fetch(input, init);
      };
      await devnet.mine(1);
      const coin = devnet.utxos().find((u) => u.satoshis >= 10_000n && ownerKnown(u.lockingScript))!;
      const first = await spend(
        [
          {
            txid: coin.txid,
            vout: coin.vout,
            satoshis: coin.satoshis,
            key: ownerOf(coin.lockingScript, alice),
          },
        ],
        [{ to: alice, satoshis: coin.satoshis - 1000n }],
      );
      const second = await spend([first.out(0)], [{ to: bob, satoshis: coin.satoshis - 2000n }]);
      const results = await open({ fetch: flaky }).broadcastMany([first.raw, second.raw]);
      assert.deepEqual(
        results.map((r) => r.ok),
        [true, true],
      );
      assert.equal(bodies.length, 2, 'one failed attempt, one retry');
      assert.equal(bodies[0], bodies[1], 'the retry resends the same bytes');
      assert.equal(bodies[0], `${hex(first.raw)}\n${hex(second.raw)}`);
      assert.equal((await devnet.status(second.txid)).kind, 'mempool');
    });

    it('sends each alone when ARC refuses the batch whole, so one bad transaction fails only itself', async () => {
      const refusing: typeof fetch = async (input, init) =>
        String(input).endsWith('/v1/txs')
          ? new Response(JSON.stringify({ status: 463, title: 'Malformed transaction', extraInfo: 'bad' }), {
              status: 463,
              headers: { 'content-type': 'application/json' },
            })
          : fetch(input, init);
      await devnet.mine(1);
      const coin = devnet.utxos().find((u) => u.satoshis >= 10_000n && ownerKnown(u.lockingScript))!;
      const ok = await spend(
        [
          {
            txid: coin.txid,
            vout: coin.vout,
            satoshis: coin.satoshis,
            key: ownerOf(coin.lockingScript, alice),
          },
        ],
        [{ to: bob, satoshis: coin.satoshis - 1000n }],
      );
      const garbage = new Uint8Array([1, 2, 3, 4]);
      const results = await open({ fetch: refusing }).broadcastMany([ok.raw, garbage]);
      assert.deepEqual(results[0], { ok: true, txid: ok.txid, status: { kind: 'mempool' } });
      assert.equal(results[1]!.ok, false);
      assert.equal(results[1]!.ok === false && results[1]!.retryable, false);
    });
  });
});

const scripts = new Map([alice, bob].map((k) => [p2pkhHex(k), k]));
function p2pkhHex(key: typeof alice): string {
  return Buffer.from(key.toPublicKey().toHash()).toString('hex');
}
function ownerKnown(lockingScript: Uint8Array): boolean {
  return [...scripts.keys()].some((h) => Buffer.from(lockingScript).toString('hex').includes(h));
}
function ownerOf(lockingScript: Uint8Array, fallback: typeof alice): typeof alice {
  const hexScript = Buffer.from(lockingScript).toString('hex');
  for (const [h, key] of scripts) if (hexScript.includes(h)) return key;
  return fallback;
}
