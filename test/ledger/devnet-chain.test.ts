// Blocks, merkle paths and reorgs: the devnet's UTXO set always matches its blocks.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MerklePath } from '@bsv/sdk';
import { createDevnet, type Devnet } from '../../src/ledger/devnet/devnet.js';
import type { TxStatus } from '../../src/ledger/port.js';
import { assertUtxoConsistent, readHeader } from './chain-check.js';
import { alice, bob, genesisCoins, genesisOption, manualClock, type Spendable, spend } from './fixtures.js';

async function openDevnet(): Promise<Devnet> {
  return createDevnet({ genesis: genesisOption, blockIntervalMs: 0, now: manualClock().now });
}

/** `count` transactions, each spending the previous one's output (a mempool chain). */
async function chainOf(devnet: Devnet, from: Spendable, count: number): Promise<string[]> {
  return (await chainWithEnd(devnet, from, count)).txids;
}

async function chainWithEnd(
  devnet: Devnet,
  from: Spendable,
  count: number,
): Promise<{ txids: string[]; end: Spendable }> {
  const txids: string[] = [];
  let coin = from;
  for (let i = 0; i < count; i++) {
    const tx = await spend([coin], [{ to: i % 2 === 0 ? bob : alice, satoshis: coin.satoshis - 500n }]);
    const result = await devnet.broadcast(tx.raw);
    assert.equal(result.ok, true, JSON.stringify(result));
    txids.push(tx.txid);
    coin = tx.out(0);
  }
  return { txids, end: coin };
}

function mined(status: TxStatus): Extract<TxStatus, { kind: 'mined' }> {
  assert.equal(status.kind, 'mined', JSON.stringify(status));
  return status as Extract<TxStatus, { kind: 'mined' }>;
}

describe('devnet blocks', () => {
  it('gives every mined transaction (coinbase included) a merkle path that computes its block merkle root', async () => {
    const devnet = await openDevnet();
    try {
      const coins = genesisCoins(devnet);
      let coin = coins[0]!;
      // Blocks of 1 (coinbase alone) to 8 transactions: odd levels, duplicates, a power of two.
      for (let n = 0; n <= 7; n++) {
        const { txids, end } = await chainWithEnd(devnet, coin, n);
        const [block] = await devnet.mine();
        assert.deepEqual(block!.txids.slice(1), txids);
        const root = readHeader(devnet.blocks()[block!.height]!).merkleRoot;
        for (const [index, txid] of block!.txids.entries()) {
          const status = mined(await devnet.status(txid));
          assert.equal(status.index, index);
          assert.equal(status.height, block!.height);
          assert.equal(status.blockHash, block!.hash);
          const path = MerklePath.fromHex(status.merklePath);
          assert.equal(path.blockHeight, block!.height);
          assert.equal(path.computeRoot(txid), root, `block of ${n + 1}, index ${index}`);
        }
        coin = end;
      }
      await assertUtxoConsistent(devnet);
    } finally {
      await devnet.close();
    }
  });

  it('stamps blocks with the clock and links them, and reports the tip', async () => {
    const clock = manualClock(1_800_000_000_000);
    const devnet = await createDevnet({ genesis: genesisOption, blockIntervalMs: 0, now: clock.now });
    try {
      clock.advance(60_000);
      const [b1] = await devnet.mine();
      assert.equal(b1!.time, 1_800_000_060);
      assert.deepEqual(await devnet.tip(), { height: 1, hash: b1!.hash, time: 1_800_000_060 });
      assert.equal(readHeader(devnet.blocks()[1]!).prevHash, devnet.blocks()[0]!.hash);
    } finally {
      await devnet.close();
    }
  });

  it('mines on its interval when the mempool holds transactions', async () => {
    const devnet = await createDevnet({ genesis: genesisOption, blockIntervalMs: 20 });
    try {
      const tx = await spend([genesisCoins(devnet)[0]!], [{ to: bob, satoshis: 99_000n }]);
      const seen = new Promise<TxStatus>((resolve) => {
        devnet.subscribe((txid, status) => {
          if (txid === tx.txid && status.kind === 'mined') resolve(status);
        });
      });
      await devnet.broadcast(tx.raw);
      // The devnet's interval timer is unref'd (it never keeps a process alive); this deadline
      // keeps the event loop alive while the test waits, and fails the test if no block comes.
      let deadline: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        deadline = setTimeout(() => reject(new Error('no block mined within 10 s')), 10_000);
      });
      try {
        assert.equal((await Promise.race([seen, timeout])).kind, 'mined');
      } finally {
        clearTimeout(deadline);
      }
    } finally {
      await devnet.close();
    }
  });
});

describe('devnet reorg', () => {
  it('sends mined transactions back to the mempool and mines them again in new blocks', async () => {
    const devnet = await openDevnet();
    try {
      const coins = genesisCoins(devnet);
      const [a] = await chainOf(devnet, coins[0]!, 1);
      await devnet.mine();
      const [b] = await chainOf(devnet, coins[2]!, 1);
      const [old] = await devnet.mine();
      const events: Array<[string, string, string?]> = [];
      devnet.subscribe((txid, s) =>
        events.push([txid, s.kind, s.kind === 'mined' ? s.blockHash : undefined]),
      );
      const oldA = mined(await devnet.status(a!));

      const result = await devnet.reorg(2);
      assert.equal(result.disconnected.length, 2);
      assert.equal(result.connected.length, 2);
      assert.equal(devnet.blocks().length, 3);
      assert.notEqual(devnet.blocks()[2]!.hash, old!.hash);
      const newA = mined(await devnet.status(a!));
      assert.notEqual(newA.blockHash, oldA.blockHash);
      assert.equal(newA.height, 1);
      // Both went back to the mempool, then forward into the first new block.
      assert.deepEqual(
        events.map(([txid, kind]) => [txid, kind]),
        [
          [b, 'mempool'],
          [a, 'mempool'],
          [a, 'mined'],
          [b, 'mined'],
        ],
      );
      assert.equal(events[2]![2], result.connected[0]!.hash);
      await assertUtxoConsistent(devnet);
    } finally {
      await devnet.close();
    }
  });

  it('drops a chosen transaction with its descendants; its inputs become spendable again', async () => {
    const devnet = await openDevnet();
    try {
      const coins = genesisCoins(devnet);
      const parent = await spend([coins[0]!], [{ to: bob, satoshis: 99_000n }]);
      await devnet.broadcast(parent.raw);
      await devnet.mine();
      const child = await spend([parent.out(0)], [{ to: alice, satoshis: 98_000n }]);
      await devnet.broadcast(child.raw);
      const grandchild = await spend([child.out(0)], [{ to: bob, satoshis: 97_000n }]);
      await devnet.mine();
      await devnet.broadcast(grandchild.raw);

      const result = await devnet.reorg(2, { drop: [parent.txid] });
      assert.deepEqual(new Set(result.evicted), new Set([parent.txid, child.txid, grandchild.txid]));
      for (const txid of [parent.txid, child.txid, grandchild.txid]) {
        assert.equal((await devnet.status(txid)).kind, 'rejected');
      }
      assert.deepEqual(devnet.mempoolTxids(), []);
      await assertUtxoConsistent(devnet);
      // The input the dropped transaction spent can now be spent by a conflicting transaction.
      const rival = await spend([coins[0]!], [{ to: alice, satoshis: 95_000n }]);
      assert.equal((await devnet.broadcast(rival.raw)).ok, true);
      await devnet.mine();
      await assertUtxoConsistent(devnet);
    } finally {
      await devnet.close();
    }
  });

  it('mines a double spend in the new chain in place of a mined transaction', async () => {
    const devnet = await openDevnet();
    try {
      const coins = genesisCoins(devnet);
      const honest = await spend([coins[1]!], [{ to: bob, satoshis: 49_000n }]);
      await devnet.broadcast(honest.raw);
      await devnet.mine();
      const thief = await spend([coins[1]!], [{ to: alice, satoshis: 48_000n }]);
      const changes: string[] = [];
      devnet.subscribe((txid, s) => changes.push(`${txid === honest.txid ? 'honest' : 'thief'}:${s.kind}`));
      const result = await devnet.reorg(1, { include: [thief.raw] });
      assert.deepEqual(result.evicted, [honest.txid]);
      assert.equal(result.included[0]?.ok, true);
      assert.equal((await devnet.status(honest.txid)).kind, 'rejected');
      assert.equal(mined(await devnet.status(thief.txid)).height, 1);
      assert.deepEqual(changes, ['honest:mempool', 'honest:rejected', 'thief:mempool', 'thief:mined']);
      await assertUtxoConsistent(devnet);
    } finally {
      await devnet.close();
    }
  });

  it('with leaveInMempool, mines empty blocks: the transactions wait in the mempool until the next block', async () => {
    const devnet = await openDevnet();
    try {
      const coins = genesisCoins(devnet);
      const [a] = await chainOf(devnet, coins[0]!, 1);
      await devnet.mine();
      const [b] = await chainOf(devnet, coins[2]!, 1);
      await devnet.mine();
      const kinds: string[] = [];
      devnet.subscribe((txid, s) => kinds.push(`${txid === a ? 'a' : 'b'}:${s.kind}`));
      const result = await devnet.reorg(2, { leaveInMempool: true });
      assert.deepEqual(
        result.connected.map((block) => block.txids.length),
        [1, 1],
        'coinbase only',
      );
      assert.equal(devnet.blocks().length, 3);
      assert.deepEqual(new Set(devnet.mempoolTxids()), new Set([a, b]));
      assert.equal((await devnet.status(a!)).kind, 'mempool');
      assert.equal(devnet.isInStaleBlock(a!), true);
      assert.deepEqual(kinds, ['b:mempool', 'a:mempool']);
      await assertUtxoConsistent(devnet);
      const [next] = await devnet.mine();
      assert.equal(mined(await devnet.status(a!)).blockHash, next!.hash);
      assert.equal(mined(await devnet.status(b!)).height, 3);
      await assertUtxoConsistent(devnet);
      await assert.rejects(
        devnet.reorg(1, { leaveInMempool: true, include: [new Uint8Array(10)] }),
        RangeError,
      );
    } finally {
      await devnet.close();
    }
  });

  it('refuses to disconnect the genesis block or to drop what it does not hold', async () => {
    const devnet = await openDevnet();
    try {
      await devnet.mine();
      await assert.rejects(devnet.reorg(2), RangeError);
      await assert.rejects(devnet.reorg(1, { drop: ['cd'.repeat(32)] }), RangeError);
      assert.equal(devnet.blocks().length, 2);
    } finally {
      await devnet.close();
    }
  });
});
