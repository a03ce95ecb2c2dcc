// Prints the devnet's retained heap per transaction and its restart time, for the ADR's figures:
//   node --expose-gc --import tsx test/ledger/devnet-memory-figures.ts [transactions] [perBlock]
// (not a test: the test is devnet-memory.test.ts; this one runs longer and only prints).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createDevnet } from '../../src/ledger/devnet/devnet.js';
import { spendingLoad } from './devnet-load.js';
import { tempDir } from './fixtures.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc');
const heap = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

const N = Number(process.argv[2] ?? 20_000);
const PER_BLOCK = Number(process.argv[3] ?? 50);
const dir = tempDir('devnet-figures-');
try {
  const load = spendingLoad(50);
  const batches: Uint8Array[][] = [];
  for (let i = 0; i < N; i += PER_BLOCK)
    batches.push(Array.from({ length: Math.min(PER_BLOCK, N - i) }, () => load.next().raw));
  const base = heap();
  const devnet = await createDevnet({ dataDir: dir.path, genesis: load.genesis, blockIntervalMs: 0 });
  const opened = heap();
  const t0 = performance.now();
  for (const batch of batches) {
    const results = await devnet.broadcastMany(batch);
    if (results.some((r) => !r.ok)) throw new Error(`refused: ${JSON.stringify(results.find((r) => !r.ok))}`);
    await devnet.mine();
  }
  const loadedMs = performance.now() - t0;
  const loaded = heap();
  await devnet.close();
  const closed = heap();
  const t1 = performance.now();
  const reopened = await createDevnet({ dataDir: dir.path, blockIntervalMs: 0 });
  const reopenMs = performance.now() - t1;
  const afterReopen = heap();
  await reopened.close();
  // Without the checkpoint and the index (a folder written before them): the whole journal, once.
  for (const derived of ['devnet.checkpoint', 'devnet.index'])
    rmSync(join(dir.path, derived), { force: true });
  const t2 = performance.now();
  const rebuilt = await createDevnet({ dataDir: dir.path, blockIntervalMs: 0 });
  const rebuildMs = performance.now() - t2;
  const afterRebuild = heap();
  await rebuilt.close();
  const mb = (n: number) => (n / 1e6).toFixed(1);
  console.log(
    JSON.stringify({
      transactions: N,
      blocks: batches.length,
      loadSeconds: +(loadedMs / 1000).toFixed(1),
      retainedAfterLoadMB: mb(loaded - opened),
      bytesPerTxAfterLoad: Math.round((loaded - opened) / N),
      restartMs: Math.round(reopenMs),
      retainedAfterRestartMB: mb(afterReopen - closed),
      bytesPerTxAfterRestart: Math.round((afterReopen - closed) / N),
      fullReplayMs: Math.round(rebuildMs),
      bytesPerTxAfterFullReplay: Math.round((afterRebuild - closed) / N),
      baseHeapMB: mb(base),
    }),
  );
} finally {
  dir.remove();
}
