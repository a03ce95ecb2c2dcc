// The devnet's memory is bounded by the live set, not the history: thousands of transactions
// mined over hundreds of blocks leave the UTXO set, the mempool and a few recent blocks in
// memory (counted, and the retained heap measured), an open reads the checkpoint and the journal
// after it (not the whole journal), and the oldest transactions are still served from disk.
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { MerklePath } from '@bsv/sdk';
import { startArcServer } from '../../src/ledger/devnet/arc-http-server.js';
import { createDevnet, type Devnet } from '../../src/ledger/devnet/devnet.js';
import { txidOf } from '../../src/ledger/devnet/hashing.js';
import { HOT_BLOCKS } from '../../src/ledger/devnet/live-outputs.js';
import { assertUtxoConsistent, readHeader, utxoOfDevnet } from './chain-check.js';
import { LEFTOVER_SATOSHIS, type Load, spendingLoad } from './devnet-load.js';
import { tempDir } from './fixtures.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const retainedHeap = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

const LANES = 20;
/** A P2PKH script's bytes (to an arbitrary key hash): the tail of a leftover output. */
const p2pkhBytes = [0x76, 0xa9, 0x14, ...new Uint8Array(20).fill(9), 0x88, 0xac];
const PER_BLOCK = 10;

/**
 * Broadcasts `count` transactions of the load, mining a block every PER_BLOCK; answers their
 * txids (only the first when not `keep`: an array of them would be measured with the devnet).
 */
async function run(devnet: Devnet, load: Load, count: number, keep = true): Promise<string[]> {
  const txids: string[] = [];
  for (let i = 0; i < count; i += PER_BLOCK) {
    const batch = Array.from({ length: Math.min(PER_BLOCK, count - i) }, () => load.next());
    const results = await devnet.broadcastMany(batch.map((t) => t.raw));
    assert.ok(
      results.every((r) => r.ok),
      JSON.stringify(results.find((r) => !r.ok)),
    );
    await devnet.mine();
    if (keep || txids.length === 0) txids.push(...batch.map((t) => t.txid));
  }
  return txids;
}

/** The transaction is served as mined (its merkle path proves it into its block's header) and its raw bytes come back. */
async function assertServed(devnet: Devnet, txid: string): Promise<void> {
  const status = await devnet.status(txid);
  assert.equal(status.kind, 'mined', `${txid}: ${JSON.stringify(status)}`);
  if (status.kind !== 'mined') return;
  const root = readHeader(devnet.block(status.height)!).merkleRoot;
  assert.equal(MerklePath.fromHex(status.merklePath).computeRoot(txid), root);
  const raw = await devnet.rawTransaction(txid);
  assert.ok(raw !== null);
  assert.equal(txidOf(raw), txid);
}

describe('devnet memory', () => {
  it('holds the live set after thousands of transactions over hundreds of blocks, not the history', {
    timeout: 120_000,
  }, async () => {
    const dir = tempDir('devnet-memory-');
    const load = spendingLoad(LANES);
    const devnet = await createDevnet({ dataDir: dir.path, genesis: load.genesis, blockIntervalMs: 0 });
    try {
      // The first thousands warm up (compiled code, the sdk's caches): measured after them.
      const first = await run(devnet, load, 5000);
      const before = retainedHeap();
      const [later] = await run(devnet, load, 5000, false);
      const after = retainedHeap();
      const perTx = (after - before) / 5000;
      process.stdout.write(
        `# devnet retained heap: ${Math.round(perTx)} bytes a transaction over 5000 transactions in ${5000 / PER_BLOCK} blocks\n`,
      );
      // What memory holds, counted: the live outputs, one header a block, at most 16 recent blocks.
      assert.deepEqual(devnet.footprint(), {
        headers: 1 + 10_000 / PER_BLOCK,
        utxos: LANES,
        hotCoins: LANES,
        mempool: 0,
        mempoolSpends: 0,
        recentBlocks: 16,
        rejected: 0,
        doubleSpends: 0,
        replayedAtOpen: 0,
      });
      // Only the headers grow with the history (136 bytes a block of 10; measured 0-60 bytes a
      // transaction with the heap's noise), where the history in memory cost about 1,330.
      assert.ok(perTx < 200, `retained ${perTx} bytes a transaction`);
      // The oldest transactions, long out of memory, are served from disk.
      for (const txid of [first[0]!, first[4999]!, later!]) await assertServed(devnet, txid);
    } finally {
      await devnet.close();
      dir.remove();
    }
  });

  it('keeps outputs nobody spends as packed keys, reading them back from disk, not as coins in memory', {
    timeout: 180_000,
  }, async () => {
    // What bench:soak's transfers leave (issue 35): each pays a fee output that nothing spends,
    // about 200 bytes of token script, so the live set grows by one a transaction.
    const leftover = Uint8Array.from([
      0x00,
      0x63,
      0x4c,
      180,
      ...new Uint8Array(180).fill(7),
      0x68,
      ...p2pkhBytes,
    ]);
    const dir = tempDir('devnet-memory-');
    const load = spendingLoad(LANES, 1n, leftover);
    const opts = {
      dataDir: dir.path,
      genesis: load.genesis,
      blockIntervalMs: 0,
      checkpointBytes: 256 * 1024,
    };
    const devnet = await createDevnet(opts);
    let closed = false;
    try {
      const [first] = await run(devnet, load, 2000, false);
      const before = retainedHeap();
      await run(devnet, load, 5000, false);
      const after = retainedHeap();
      const perTx = (after - before) / 5000;
      process.stdout.write(
        `# devnet retained heap with a leftover output a transaction: ${Math.round(perTx)} bytes a transaction\n`,
      );
      const footprint = devnet.footprint();
      assert.equal(footprint.utxos, LANES + 7000);
      // Whole coins only of the recent blocks: 2 outputs a transaction, PER_BLOCK a block.
      assert.ok(footprint.hotCoins <= HOT_BLOCKS * 2 * PER_BLOCK, `${footprint.hotCoins} hot coins`);
      // A packed outpoint (about 80 bytes) and the header share; a parsed coin cost about 600.
      assert.ok(perTx < 250, `retained ${perTx} bytes a transaction`);
      // The oldest leftover, long cold, is listed from disk with its amount and script.
      const listed = devnet.utxos().find((u) => u.txid === first && u.vout === 1);
      assert.ok(listed !== undefined);
      assert.equal(listed.satoshis, LEFTOVER_SATOSHIS);
      assert.deepEqual(listed.lockingScript, leftover);
      // Listed by script (the funding keeper's question): those and no others.
      const byScript = devnet.utxos(leftover);
      assert.equal(byScript.length, 7000);
      assert.ok(byScript.every((u) => u.vout === 1 && u.satoshis === LEFTOVER_SATOSHIS));
      const utxo = utxoOfDevnet(devnet);
      await devnet.close();
      closed = true;
      // Reopened: every coin is cold, and spending them reads them back through the index.
      const reopened = await createDevnet(opts);
      try {
        assert.equal(reopened.footprint().hotCoins, 0);
        assert.deepEqual(utxoOfDevnet(reopened), utxo);
        await run(reopened, load, 100, false);
        assert.equal(reopened.footprint().utxos, LANES + 7100);
        await assertUtxoConsistent(reopened);
      } finally {
        await reopened.close();
      }
    } finally {
      if (!closed) await devnet.close();
      dir.remove();
    }
  });

  it('opens from the checkpoint and the journal after it, not the whole journal, and serves the oldest transactions', {
    timeout: 120_000,
  }, async () => {
    const dir = tempDir('devnet-memory-');
    const image = tempDir('devnet-memory-image-');
    const load = spendingLoad(LANES);
    const opts = { genesis: load.genesis, blockIntervalMs: 0, checkpointBytes: 64 * 1024 };
    const live = await createDevnet({ dataDir: dir.path, ...opts });
    try {
      const txids = await run(live, load, 3000);
      const entries = 3000 + 1 + 3000 / PER_BLOCK;
      const blocks = live.blocks().map((b) => b.hash);
      // What a kill -9 leaves: the files as they are, the checkpoint no newer than the rest.
      for (const file of ['devnet.checkpoint', 'devnet.index', 'devnet.journal']) {
        copyFileSync(join(dir.path, file), join(image.path, file));
      }
      const crashed = await createDevnet({ dataDir: image.path, ...opts });
      try {
        const { replayedAtOpen } = crashed.footprint();
        assert.ok(
          replayedAtOpen > 0 && replayedAtOpen < entries / 5,
          `replayed ${replayedAtOpen} of ${entries}`,
        );
        assert.deepEqual(
          crashed.blocks().map((b) => b.hash),
          blocks,
        );
        assert.deepEqual(utxoOfDevnet(crashed), utxoOfDevnet(live));
        for (const txid of [txids[0]!, txids[1500]!, txids[2999]!]) await assertServed(crashed, txid);
      } finally {
        await crashed.close();
      }
      // Closed: the checkpoint is at the journal's end, and the next open replays nothing.
      const reopened = await createDevnet({ dataDir: image.path, ...opts });
      try {
        assert.equal(reopened.footprint().replayedAtOpen, 0);
        await assertServed(reopened, txids[0]!);
        // Served over ARC's API too, as `tokenproxy fund --txid` and the ARC adapter ask for it.
        const server = await startArcServer({ devnet: reopened });
        try {
          const body = (await (await fetch(`${server.url}/v1/tx/${txids[0]}`)).json()) as Record<
            string,
            unknown
          >;
          assert.equal(body.txStatus, 'MINED');
          assert.equal(body.blockHeight, 1);
          assert.equal(
            MerklePath.fromHex(body.merklePath as string).computeRoot(txids[0]!),
            readHeader(reopened.block(1)!).merkleRoot,
          );
        } finally {
          await server.close();
        }
      } finally {
        await reopened.close();
      }
    } finally {
      await live.close();
      dir.remove();
      image.remove();
    }
  });

  it('rebuilds its index from the whole journal when the checkpoint or the index is gone', {
    timeout: 120_000,
  }, async () => {
    const dir = tempDir('devnet-memory-');
    const load = spendingLoad(LANES);
    const opts = { dataDir: dir.path, genesis: load.genesis, blockIntervalMs: 0 };
    try {
      const first = await createDevnet(opts);
      const txids = await run(first, load, 400);
      const blocks = first.blocks().map((b) => b.hash);
      const utxo = utxoOfDevnet(first);
      await first.close();
      for (const lost of ['devnet.checkpoint', 'devnet.index']) {
        assert.ok(existsSync(join(dir.path, lost)));
        rmSync(join(dir.path, lost));
        const reopened = await createDevnet(opts);
        try {
          assert.equal(reopened.footprint().replayedAtOpen, 400 + 1 + 400 / PER_BLOCK, `without ${lost}`);
          assert.deepEqual(
            reopened.blocks().map((b) => b.hash),
            blocks,
          );
          assert.deepEqual(utxoOfDevnet(reopened), utxo);
          await assertServed(reopened, txids[0]!);
        } finally {
          await reopened.close();
        }
      }
    } finally {
      dir.remove();
    }
  });

  it('reorgs blocks long out of memory by reading them back, and names a chain spender from disk', {
    timeout: 120_000,
  }, async () => {
    const dir = tempDir('devnet-memory-');
    const load = spendingLoad(LANES);
    const opts = { dataDir: dir.path, genesis: load.genesis, blockIntervalMs: 0 };
    try {
      const first = await createDevnet(opts);
      const txids = await run(first, load, 300);
      await first.close();
      const devnet = await createDevnet(opts);
      try {
        // The open checked the first and the last block's entries; no other block is in memory.
        assert.equal(devnet.footprint().recentBlocks, 2);
        // A double spend of the first transaction's input: refused, its spender named from the index.
        const rival = spendingLoad(LANES, 2n).next();
        const refused = await devnet.broadcast(rival.raw);
        assert.equal(refused.ok, false);
        assert.ok(
          !refused.ok && refused.arcCode === 466 && refused.reason.includes(txids[0]!),
          JSON.stringify(refused),
        );
        const result = await devnet.reorg(25, { leaveInMempool: true });
        assert.equal(result.disconnected.length, 25);
        assert.deepEqual(new Set(devnet.mempoolTxids()), new Set(txids.slice(-250)));
        assert.equal(devnet.isInStaleBlock(txids[299]!), true);
        await devnet.mine();
        assert.deepEqual(devnet.mempoolTxids(), []);
        await assertUtxoConsistent(devnet);
        await assertServed(devnet, txids[299]!);
      } finally {
        await devnet.close();
      }
    } finally {
      dir.remove();
    }
  });
});
