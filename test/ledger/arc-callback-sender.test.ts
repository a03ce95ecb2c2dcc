// The devnet's callback sender: its waits (a batch window, a retry's delay) leave nothing behind
// on the sender's stop signal, however many there were, and closing it still cuts a wait short.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ArcCallbackSender } from '../../src/ledger/devnet/arc-callback-sender.js';
import type { ArcStatusBody } from '../../src/ledger/devnet/arc-responses.js';

const status = (txid: string): ArcStatusBody => ({
  timestamp: new Date(0).toISOString(),
  txid,
  txStatus: 'MINED',
  blockHash: '00'.repeat(32),
  blockHeight: 1,
  merklePath: '',
  extraInfo: '',
  competingTxs: null,
});

test('batch windows one after another leave no listener behind (no MaxListeners warning)', async () => {
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(w.name);
  process.on('warning', onWarning);
  let posted = 0;
  const sender = new ArcCallbackSender({
    batchWindowMs: 1,
    fetch: (async () => {
      posted++;
      return new Response(null, { status: 200 });
    }) as typeof fetch,
  });
  try {
    for (let i = 0; i < 40; i++) {
      const txid = i.toString(16).padStart(64, '0');
      sender.register(txid, { url: 'http://127.0.0.1:9/cb', fullStatusUpdates: false, batch: true });
      sender.notify(status(txid));
      // The window closes and its batch is posted before the next status opens a new one.
      await new Promise((r) => setTimeout(r, 5));
    }
    await new Promise((r) => setImmediate(r));
    assert.equal(posted, 40, 'one POST a window');
    assert.deepEqual(
      warnings.filter((w) => w === 'MaxListenersExceededWarning'),
      [],
    );
  } finally {
    process.off('warning', onWarning);
    await sender.close();
  }
});

test('closing the sender cuts a retry delay short', async () => {
  const sender = new ArcCallbackSender({
    retries: 1,
    retryDelayMs: 60_000,
    fetch: (async () => new Response(null, { status: 500 })) as typeof fetch,
  });
  const txid = 'ab'.repeat(32);
  sender.register(txid, { url: 'http://127.0.0.1:9/cb', fullStatusUpdates: false });
  sender.notify(status(txid));
  await new Promise((r) => setTimeout(r, 20));
  const t = performance.now();
  await sender.close();
  assert.ok(performance.now() - t < 5_000, 'close did not wait out the one-minute retry delay');
});
