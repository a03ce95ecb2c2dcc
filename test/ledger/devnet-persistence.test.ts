// The devnet resumes from its data folder with everything it acknowledged.
import assert from 'node:assert/strict';
import { appendFileSync, copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createDevnet, type Devnet, DevnetGenesisMismatchError } from '../../src/ledger/devnet/devnet.js';
import { DevnetFolderInUseError } from '../../src/ledger/devnet/folder-lock.js';
import { assertUtxoConsistent, utxoOfDevnet } from './chain-check.js';
import { alice, bob, genesisCoins, genesisOption, manualClock, spend, tempDir } from './fixtures.js';

interface Snapshot {
  blocks: string[];
  utxo: Set<string>;
  mempool: string[];
  statuses: Record<string, unknown>;
}

async function snapshot(devnet: Devnet, txids: readonly string[]): Promise<Snapshot> {
  const statuses: Record<string, unknown> = {};
  for (const txid of txids) statuses[txid] = await devnet.status(txid);
  return {
    blocks: devnet.blocks().map((b) => b.hash),
    utxo: utxoOfDevnet(devnet),
    mempool: devnet.mempoolTxids(),
    statuses,
  };
}

/** Mines, reorgs (with a drop) and leaves transactions in the mempool; answers every txid involved. */
async function history(devnet: Devnet): Promise<string[]> {
  const coins = genesisCoins(devnet);
  const a = await spend([coins[0]!], [{ to: bob, satoshis: 99_000n }]);
  const b = await spend([coins[2]!], [{ to: alice, satoshis: 99_000n }]);
  await devnet.broadcast(a.raw);
  await devnet.broadcast(b.raw);
  await devnet.mine();
  const c = await spend([a.out(0)], [{ to: alice, satoshis: 98_000n }]);
  await devnet.broadcast(c.raw);
  await devnet.mine(2);
  await devnet.reorg(2, { drop: [c.txid] });
  const d = await spend([b.out(0)], [{ to: bob, satoshis: 98_000n }]);
  const e = await spend([d.out(0)], [{ to: alice, satoshis: 97_000n }]);
  await devnet.broadcast(d.raw);
  await devnet.broadcast(e.raw);
  return [a.txid, b.txid, c.txid, d.txid, e.txid];
}

describe('devnet persistence', () => {
  it('reopens a closed data folder with the same chain, UTXO set, mempool and statuses', async () => {
    const dir = tempDir();
    try {
      const clock = manualClock();
      const first = await createDevnet({
        dataDir: dir.path,
        genesis: genesisOption,
        blockIntervalMs: 0,
        now: clock.now,
      });
      const txids = await history(first);
      const before = await snapshot(first, txids);
      assert.equal(before.mempool.length, 2);
      await first.close();

      const second = await createDevnet({
        dataDir: dir.path,
        genesis: genesisOption,
        blockIntervalMs: 0,
        now: clock.now,
      });
      try {
        assert.deepEqual(await snapshot(second, txids), before);
        await assertUtxoConsistent(second);
        // It goes on from there: the mempool is mined into a block of a new hash.
        const [next] = await second.mine();
        assert.equal(next!.height, before.blocks.length);
        assert.deepEqual(next!.txids.slice(1), before.mempool);
        await assertUtxoConsistent(second);
      } finally {
        await second.close();
      }
    } finally {
      dir.remove();
    }
  });

  it('loses nothing acknowledged when the process dies without closing (a copy of the folder taken while open)', async () => {
    const dir = tempDir();
    const image = tempDir();
    try {
      const live = await createDevnet({ dataDir: dir.path, genesis: genesisOption, blockIntervalMs: 0 });
      const txids = await history(live);
      const acknowledged = await snapshot(live, txids);
      // What a kill -9 leaves on disk: the journal as it is now (no close, no final flush).
      copyFileSync(join(dir.path, 'devnet.journal'), join(image.path, 'devnet.journal'));
      const reopened = await createDevnet({ dataDir: image.path, blockIntervalMs: 0 });
      try {
        assert.deepEqual(await snapshot(reopened, txids), acknowledged);
        await assertUtxoConsistent(reopened);
      } finally {
        await reopened.close();
        await live.close();
      }
    } finally {
      dir.remove();
      image.remove();
    }
  });

  it('cuts off a write torn by a crash and keeps everything before it', async () => {
    const dir = tempDir();
    try {
      const devnet = await createDevnet({ dataDir: dir.path, genesis: genesisOption, blockIntervalMs: 0 });
      const tx = await spend([genesisCoins(devnet)[1]!], [{ to: bob, satoshis: 49_000n }]);
      await devnet.broadcast(tx.raw);
      await devnet.close();
      const journal = join(dir.path, 'devnet.journal');
      const whole = readFileSync(journal, 'utf8');
      appendFileSync(journal, '{"e":"tx","raw":"0100');
      const reopened = await createDevnet({ dataDir: dir.path, blockIntervalMs: 0 });
      try {
        assert.deepEqual(await reopened.status(tx.txid), { kind: 'mempool' });
        assert.equal(readFileSync(journal, 'utf8'), whole);
      } finally {
        await reopened.close();
      }
    } finally {
      dir.remove();
    }
  });

  it('refuses a second opener of a data folder while the first holds it', async () => {
    const dir = tempDir();
    try {
      const first = await createDevnet({ dataDir: dir.path, blockIntervalMs: 0 });
      await assert.rejects(createDevnet({ dataDir: dir.path, blockIntervalMs: 0 }), DevnetFolderInUseError);
      await first.close();
      const second = await createDevnet({ dataDir: dir.path, blockIntervalMs: 0 });
      await second.close();
    } finally {
      dir.remove();
    }
  });

  it('creates the genesis once: same outputs on reopen, a clear error if they changed', async () => {
    const dir = tempDir();
    try {
      const first = await createDevnet({ dataDir: dir.path, genesis: genesisOption, blockIntervalMs: 0 });
      const genesisHash = first.blocks()[0]!.hash;
      await first.close();
      const again = await createDevnet({ dataDir: dir.path, genesis: genesisOption, blockIntervalMs: 0 });
      assert.equal(again.blocks()[0]!.hash, genesisHash);
      assert.equal(again.blocks().length, 1);
      await again.close();
      const other = [{ ...genesisOption[0]!, satoshis: 1n }];
      await assert.rejects(
        createDevnet({ dataDir: dir.path, genesis: other, blockIntervalMs: 0 }),
        DevnetGenesisMismatchError,
      );
      // The failed open released the folder.
      const plain = await createDevnet({ dataDir: dir.path, blockIntervalMs: 0 });
      assert.equal(plain.blocks()[0]!.hash, genesisHash);
      await plain.close();
    } finally {
      dir.remove();
    }
  });

  it('creates a missing data folder', async () => {
    const dir = tempDir();
    try {
      const nested = join(dir.path, 'a', 'b');
      mkdirSync(join(dir.path, 'a'));
      const devnet = await createDevnet({ dataDir: nested, blockIntervalMs: 0 });
      await devnet.close();
      assert.ok(readFileSync(join(nested, 'devnet.journal'), 'utf8').length > 0);
    } finally {
      dir.remove();
    }
  });
});
