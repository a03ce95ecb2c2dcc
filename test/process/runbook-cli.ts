// The runbook tests' tools: the service started as an operator starts it, the CLI asked for
// JSON, what `audit` and `reconcile` print, and the devnet ledger's own transactions read back
// from its folder once the service is stopped.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createDevnet } from '../../src/ledger/devnet/devnet.js';
import { eventually } from '../e2e/support.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = ['--import', 'tsx', 'src/cli/entry.ts'] as const;

export interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `command args` from the repository's root, its output collected. */
export function run(command: string, args: readonly string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** `tokenproxy args`. */
export function runCli(args: readonly string[]): Promise<Run> {
  return run(process.execPath, [...CLI, ...args]);
}

export interface AuditJson {
  ok: boolean;
  transactions: number;
  supply: { index: Record<string, unknown>; recomputed: Record<string, unknown> };
}

export interface Difference {
  kind: string;
  txid?: string;
  refusal?: string | null;
  outpoint?: string;
}

export interface ReconcileJson {
  ok: boolean;
  coverage: string;
  differences: Difference[];
  repaired: { ingested: string[]; fundingSpent: string[]; retracked: string[] };
  remaining: Difference[];
}

/**
 * `tokenproxy start` on `port` and `dataDir` with `flags`, a block only when asked (`mine`), no
 * rate limit; answers once /readyz does.
 */
export async function startService(
  port: number,
  dataDir: string,
  flags: readonly string[],
): Promise<ChildProcess> {
  const args = ['--port', String(port), '--data-dir', dataDir, ...flags];
  const quiet = ['--block-interval-ms', '0', '--log-level', 'error', '--no-rate-limit-enabled'];
  const child = spawn(process.execPath, [...CLI, 'start', ...args, ...quiet], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await eventually(
    async () => {
      if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
      const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null);
      return res?.ok === true ? true : undefined;
    },
    'the service is ready',
    1_200,
  );
  return child;
}

/** SIGTERM, and waits for the exit. */
export async function stopService(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/**
 * The CLI against the service at `url` with `--json`: `cli` answers the exit code and the JSON
 * printed (failing when none was), `ok` the JSON of a command that must exit 0.
 */
export function jsonCli(url: string, dataDir: string) {
  const cli = async (...args: string[]): Promise<{ code: number; json: unknown }> => {
    const r = await runCli([...args, '--url', url, '--data-dir', dataDir, '--json']);
    let json: unknown = null;
    try {
      json = JSON.parse(r.stdout);
    } catch {
      assert.fail(`tokenproxy ${args.join(' ')} printed no JSON (exit ${r.code}): ${r.stdout} ${r.stderr}`);
    }
    return { code: r.code, json };
  };
  const ok = async (...args: string[]): Promise<unknown> => {
    const r = await cli(...args);
    assert.equal(r.code, 0, `tokenproxy ${args.join(' ')}: ${JSON.stringify(r.json)}`);
    return r.json;
  };
  return { cli, ok };
}

/** Every transaction of the devnet in `devnetDir` but the coinbases, read while no service runs. */
export async function devnetTransactions(devnetDir: string): Promise<{ txid: string; raw: Uint8Array }[]> {
  const devnet = await createDevnet({ dataDir: devnetDir, blockIntervalMs: 0 });
  try {
    const txs: { txid: string; raw: Uint8Array }[] = [];
    for (const block of devnet.blocks())
      for (const txid of block.txids.slice(1)) {
        const raw = await devnet.rawTransaction(txid);
        if (raw !== null) txs.push({ txid, raw });
      }
    return txs;
  } finally {
    await devnet.close();
  }
}
