// The arc adapter against the devnet's ARC API over real HTTP on 127.0.0.1.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { type ArcLedger, createArcLedger } from '../../src/ledger/arc/arc-ledger.js';
import { type ArcServer, startArcServer } from '../../src/ledger/devnet/arc-http-server.js';
import { createDevnet, type Devnet } from '../../src/ledger/devnet/devnet.js';
import { LedgerUnavailableError, type TxStatus } from '../../src/ledger/port.js';
import { type CallbackReceiver, startCallbackReceiver } from './callback-receiver.js';
import {
  alice,
  bob,
  confirmedCoinOf,
  genesisCoins,
  genesisOption,
  manualClock,
  type Spendable,
  spend,
} from './fixtures.js';

const API_KEY = 'arc-key';
const TOKEN = 'callback-token';

/** Resolves with the first status of `txid` that `predicate` accepts, from the ledger's subscribers. */
function nextStatus(ledger: ArcLedger, txid: string, predicate: (s: TxStatus) => boolean): Promise<TxStatus> {
  return new Promise((resolve) => {
    const off = ledger.subscribe((id, status) => {
      if (id === txid && predicate(status)) {
        off();
        resolve(status);
      }
    });
  });
}

describe('arc adapter over the devnet ARC API', () => {
  const clock = manualClock();
  let devnet: Devnet;
  let server: ArcServer;
  let receiver: CallbackReceiver;
  let coins: Spendable[];
  let ledger: ArcLedger;
  let handler: ArcLedger | null = null;
  const ledgers: ArcLedger[] = [];

  const open = (extra: Partial<Parameters<typeof createArcLedger>[0]> = {}): ArcLedger => {
    const l = createArcLedger({
      url: server.url,
      apiKey: API_KEY,
      retries: 1,
      retryDelayMs: 10,
      pollIntervalMs: 20,
      now: clock.now,
      ...extra,
    });
    ledgers.push(l);
    return l;
  };

  before(async () => {
    devnet = await createDevnet({
      genesis: genesisOption,
      blockIntervalMs: 0,
      feeRateSatPerKb: 50n,
      now: clock.now,
    });
    server = await startArcServer({
      devnet,
      apiKey: API_KEY,
      now: clock.now,
      callbacks: { retryDelayMs: 10 },
    });
    receiver = await startCallbackReceiver(async (body, auth) =>
      handler === null ? { status: 503 } : handler.handleArcCallback(body, auth),
    );
    coins = genesisCoins(devnet);
  });
  afterEach(async () => {
    for (const l of ledgers.splice(0)) await l.close();
    handler = null;
  });
  after(async () => {
    await server.close();
    await receiver.close();
    await devnet.close();
  });

  it('broadcasts, reads statuses, the fee policy, its raw transactions and the tip', async () => {
    ledger = open();
    const tx = await spend([coins[0]!], [{ to: bob, satoshis: 99_000n }]);
    assert.deepEqual(await ledger.broadcast(tx.raw), {
      ok: true,
      txid: tx.txid,
      status: { kind: 'mempool' },
    });
    assert.deepEqual(await ledger.status(tx.txid), { kind: 'mempool' });
    assert.deepEqual(await ledger.rawTransaction(tx.txid), tx.raw);
    assert.equal(await ledger.rawTransaction('00'.repeat(32)), null);
    assert.deepEqual(await ledger.feePolicy(), { satoshisPerKb: 50n });
    assert.deepEqual(await ledger.status('ab'.repeat(32)), { kind: 'unknown' });
    await devnet.mine();
    const mined = await ledger.status(tx.txid);
    assert.deepEqual(mined, await devnet.status(tx.txid));
    assert.deepEqual(await ledger.tip(), await devnet.tip());
  });

  it('learns statuses from ARC callbacks, and refuses a callback without the token', async () => {
    ledger = open({ callbackUrl: receiver.url, callbackToken: TOKEN });
    handler = ledger;
    const tx = await spend([coins[1]!], [{ to: alice, satoshis: 49_000n }]);
    const minedSeen = nextStatus(ledger, tx.txid, (s) => s.kind === 'mined');
    assert.equal((await ledger.broadcast(tx.raw)).ok, true);
    clock.advance(1000);
    await devnet.mine();
    assert.deepEqual(await minedSeen, await devnet.status(tx.txid));
    // Asked for in batches (X-CallbackBatch): every callback is a {count, callbacks} body.
    assert.ok(receiver.received.length > 0);
    for (const c of receiver.received) assert.ok(Array.isArray(c.body.callbacks), JSON.stringify(c.body));
    const forged = {
      timestamp: new Date().toISOString(),
      txid: tx.txid,
      txStatus: 'REJECTED',
      extraInfo: 'forged',
    };
    assert.deepEqual(await ledger.handleArcCallback(forged, 'Bearer wrong'), {
      status: 401,
      error: 'missing or wrong callback token',
    });
    assert.equal((await ledger.handleArcCallback({ nope: true }, `Bearer ${TOKEN}`)).status, 400);
  });

  it('follows a reorg through callbacks: back to the mempool, then mined in the new block', async () => {
    ledger = open({ callbackUrl: receiver.url, callbackToken: TOKEN });
    handler = ledger;
    const tx = await spend([coins[2]!], [{ to: alice, satoshis: 99_000n }]);
    await ledger.broadcast(tx.raw);
    const first = nextStatus(ledger, tx.txid, (s) => s.kind === 'mined');
    await devnet.mine();
    const old = await first;
    const kinds: string[] = [];
    ledger.subscribe((id, s) => id === tx.txid && kinds.push(s.kind));
    const again = nextStatus(
      ledger,
      tx.txid,
      (s) => s.kind === 'mined' && s.blockHash !== (old as { blockHash: string }).blockHash,
    );
    const reorg = await devnet.reorg(1);
    const remined = await again;
    assert.equal((remined as { blockHash: string }).blockHash, reorg.connected[0]!.hash);
    assert.deepEqual(kinds, ['mempool', 'mined']);
  });

  it('polls watched txids without callbacks, and stops when unwatched', async () => {
    ledger = open();
    const tx = await spend([coins[3]!], [{ to: bob, satoshis: 19_000n }]);
    await ledger.broadcast(tx.raw);
    ledger.watch(tx.txid);
    const mined = nextStatus(ledger, tx.txid, (s) => s.kind === 'mined');
    await devnet.mine();
    const first = (await mined) as { blockHash: string };
    const moved = nextStatus(ledger, tx.txid, (s) => s.kind === 'mined' && s.blockHash !== first.blockHash);
    await devnet.reorg(1);
    assert.equal((await moved).kind, 'mined');
    ledger.unwatch(tx.txid);
  });

  it('reports a double spend: 466 at broadcast, then REJECTED once the winner is mined', async () => {
    ledger = open({ callbackUrl: receiver.url, callbackToken: TOKEN });
    handler = ledger;
    const source = devnet.utxos().find((u) => u.satoshis === 99_000n && u.txid !== coins[0]!.txid)!;
    const owner = { txid: source.txid, vout: source.vout, satoshis: source.satoshis, key: bob };
    const winner = await spend([owner], [{ to: alice, satoshis: 98_000n }]);
    const loser = await spend([owner], [{ to: bob, satoshis: 97_000n }]);
    assert.equal((await ledger.broadcast(winner.raw)).ok, true);
    const refused = await ledger.broadcast(loser.raw);
    assert.deepEqual(refused.ok ? null : [refused.arcCode, refused.retryable], [466, false]);
    assert.deepEqual(await ledger.status(loser.txid), {
      kind: 'double-spend',
      competingTxids: [winner.txid],
    });
    const rejected = nextStatus(ledger, loser.txid, (s) => s.kind === 'rejected');
    await devnet.mine();
    assert.equal((await rejected).kind, 'rejected');
  });

  it('throws LedgerUnavailableError while ARC is down, and works again once it is back', async () => {
    const port = server.port;
    await server.close();
    try {
      ledger = open({ retries: 2, retryDelayMs: 5 });
      await devnet.mine();
      const tx = await spend([confirmedCoinOf(devnet, alice)], [{ to: bob, satoshis: 1000n }]);
      await assert.rejects(ledger.broadcast(tx.raw), LedgerUnavailableError);
      await assert.rejects(ledger.status(tx.txid), LedgerUnavailableError);
      // Down when the broadcast starts, up during its retries: the same bytes get through once.
      const patient = open({ retries: 20, retryDelayMs: 20 });
      const pending = patient.broadcast(tx.raw);
      await new Promise((r) => setTimeout(r, 100));
      server = await startArcServer({
        devnet,
        apiKey: API_KEY,
        port,
        now: clock.now,
        callbacks: { retryDelayMs: 10 },
      });
      assert.deepEqual(await pending, { ok: true, txid: tx.txid, status: { kind: 'mempool' } });
      assert.deepEqual(await devnet.status(tx.txid), { kind: 'mempool' });
    } finally {
      if (!server.url.endsWith(`:${port}`)) server = await startArcServer({ devnet, apiKey: API_KEY, port });
    }
  });

  it('retries a 5xx with the same bytes, never another transaction', async () => {
    const sent: string[] = [];
    let failures = 2;
    const flaky: typeof fetch = async (input, init) => {
      if (init?.method === 'POST') {
        sent.push(String(init.body));
        if (failures-- > 0) return new Response('busy', { status: 503 });
      }
      return fetch(input, init);
    };
    ledger = open({ fetch: flaky, retries: 3, retryDelayMs: 5 });
    await devnet.mine();
    const tx = await spend([confirmedCoinOf(devnet, alice)], [{ to: bob, satoshis: 1500n }]);
    assert.equal((await ledger.broadcast(tx.raw)).ok, true);
    assert.equal(sent.length, 3);
    assert.deepEqual(new Set(sent), new Set([Buffer.from(tx.raw).toString('hex')]));
  });

  it('asks the ledger for the chain tip: blocks it never saw mine a transaction of its own count', async () => {
    // A ledger that broadcast nothing and watched nothing (issue 34: a process showed height 0
    // while the devnet kept mining).
    ledger = open();
    await devnet.mine(2);
    const tip = await ledger.tip();
    assert.deepEqual(tip, await devnet.tip());
    assert.ok(tip.height >= 2);
    await devnet.mine(1);
    assert.equal((await ledger.tip()).height, tip.height + 1, 'asked again, not remembered');
  });

  it('asks a Block Headers Service given as tipUrl, and says what to set when there is none', async () => {
    ledger = open({ tipUrl: `${server.url}/elsewhere` });
    await assert.rejects(ledger.tip(), (err: Error) => {
      assert.ok(err instanceof LedgerUnavailableError);
      assert.match(err.message, /GET .*\/elsewhere\/api\/v1\/chain\/tip\/longest answered 404/);
      assert.match(err.message, /blockHeadersUrl/);
      return true;
    });
    const viaHeaders = open({ tipUrl: server.url, tipApiKey: API_KEY, apiKey: 'not-the-key' });
    assert.deepEqual(await viaHeaders.tip(), await devnet.tip());
  });
});
