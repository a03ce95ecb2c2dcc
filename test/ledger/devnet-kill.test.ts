// kill -9 of a `tokenproxy devnet` process: everything it acknowledged over HTTP is there at reopen.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createDevnet } from '../../src/ledger/devnet/devnet.js';
import { assertUtxoConsistent } from './chain-check.js';
import { alice, bob, GENESIS, genesisOption, type Spendable, spend, tempDir } from './fixtures.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

function startDevnetProcess(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const genesisArgs = genesisOption.flatMap((g) => [
    '--genesis',
    `${Buffer.from(g.lockingScript).toString('hex')}:${g.satoshis}`,
  ]);
  const args = ['--data-dir', dataDir, '--port', '0', '--block-interval', '0', ...genesisArgs];
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '-e',
      `import('./src/cli/devnet.ts').then((m) => m.runDevnetCommand(${JSON.stringify(args)}))`,
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /devnet ARC API on (http:\/\/[0-9.:]+)/.exec(out)?.[1];
      if (url !== undefined) resolve({ child, url });
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.once('exit', (code) => reject(new Error(`devnet process exited (${code}): ${err}`)));
  });
}

describe('devnet killed with SIGKILL', () => {
  it('reopens with every transaction and block it acknowledged', { timeout: 60_000 }, async () => {
    const dir = tempDir('devnet-kill-');
    let child: ChildProcess | undefined;
    try {
      const started = await startDevnetProcess(dir.path);
      child = started.child;
      const post = (path: string, body?: string) =>
        fetch(`${started.url}${path}`, { method: 'POST', body: body ?? '' });
      const genesis = (await (await fetch(`${started.url}/devnet/blocks/0`)).json()) as { txids: string[] };
      const coinbase = genesis.txids[0]!;
      let coin: Spendable = { txid: coinbase, vout: 0, satoshis: GENESIS[0].satoshis, key: alice };
      const acknowledged: string[] = [];
      const txs = [];
      for (let i = 0; i < 12; i++) {
        const tx = await spend([coin], [{ to: i % 2 === 0 ? bob : alice, satoshis: coin.satoshis - 300n }]);
        txs.push(tx);
        coin = tx.out(0);
      }
      for (const tx of txs.slice(0, 6)) {
        const res = await post('/v1/tx', Buffer.from(tx.raw).toString('hex'));
        assert.equal(res.status, 200);
        acknowledged.push(tx.txid);
      }
      const mined = (await (await post('/devnet/mine')).json()) as { blocks: Array<{ hash: string }> };
      // The rest in flight at once; the process dies right after the first answer.
      const inFlight = txs.slice(6).map((tx) =>
        post('/v1/tx', Buffer.from(tx.raw).toString('hex')).then(
          (res) => {
            if (res.status === 200) acknowledged.push(tx.txid);
          },
          () => {},
        ),
      );
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      await Promise.race(inFlight);
      child.kill('SIGKILL');
      await exited;
      await Promise.allSettled(inFlight);

      const reopened = await createDevnet({ dataDir: dir.path, blockIntervalMs: 0 });
      try {
        assert.equal(reopened.blocks()[1]?.hash, mined.blocks[0]!.hash);
        for (const txid of acknowledged) {
          const status = await reopened.status(txid);
          assert.ok(
            status.kind === 'mempool' || status.kind === 'mined',
            `${txid} acknowledged, now ${status.kind}`,
          );
        }
        assert.ok(acknowledged.length >= 7);
        await assertUtxoConsistent(reopened);
      } finally {
        await reopened.close();
      }
    } finally {
      if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      dir.remove();
    }
  });
});
