// A tokenproxy process of its own (node, tsx, the CLI's `start`), as a supervisor runs one: the
// given roles on a free loopback port, a data folder of its own, the world's database and
// ledger. For the suites that need what only separate processes show (metrics, readiness).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

export interface RoleProcess {
  /** `http://127.0.0.1:<port>`: /healthz, /readyz and /metrics (and the api, when it runs one). */
  readonly url: string;
  readonly child: ChildProcess;
  /** Resolves when the process has exited, however it ended. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, then SIGKILL after 10 s; removes its data folder. */
  stop(): Promise<void>;
}

/** A supervisor's restart: the same port and data folder as the process it replaces. */
export interface RoleProcessPlace {
  readonly port: number;
  readonly dataDir: string;
}

/**
 * `tokenproxy start --roles roles` on the place's port and data folder; stderr to the test's own
 * unless asked for (`'pipe'`), at `logLevel` (default `error`).
 */
export function spawnRoleProcess(
  roles: string,
  databaseUrl: string,
  flags: readonly string[],
  place: RoleProcessPlace,
  options: { logLevel?: string; stderr?: 'inherit' | 'pipe' } = {},
): ChildProcess {
  return spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/cli/entry.ts',
      'start',
      '--roles',
      roles,
      '--port',
      String(place.port),
      '--data-dir',
      place.dataDir,
      '--log-level',
      options.logLevel ?? 'error',
      '--database-url',
      databaseUrl,
      ...flags,
    ],
    { cwd: ROOT, stdio: ['ignore', 'ignore', options.stderr ?? 'inherit'] },
  );
}

export async function startRoleProcess(
  roles: string,
  databaseUrl: string,
  flags: readonly string[],
  place?: RoleProcessPlace,
): Promise<RoleProcess> {
  const port = place?.port ?? (await freePort());
  const dataDir = place?.dataDir ?? mkdtempSync(join(tmpdir(), `tokenproxy-${roles.replaceAll(',', '-')}-`));
  const child = spawnRoleProcess(roles, databaseUrl, flags, { port, dataDir });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Prometheus text as {series (name and labels, as printed): value}. */
export function parseMetrics(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const cut = line.lastIndexOf(' ');
    out.set(line.slice(0, cut), Number(line.slice(cut + 1)));
  }
  return out;
}

/** The sum of a metric's series whose labels include every `labels` pair. */
export function sumOf(
  series: Map<string, number>,
  name: string,
  labels: Record<string, string> = {},
): number {
  let sum = 0;
  for (const [key, value] of series) {
    const brace = key.indexOf('{');
    const metric = brace < 0 ? key : key.slice(0, brace);
    if (metric !== name) continue;
    if (Object.entries(labels).every(([k, v]) => key.includes(`${k}="${v}"`))) sum += value;
  }
  return sum;
}

/** Whether any series of the metric is present. */
export function hasMetric(series: Map<string, number>, name: string): boolean {
  for (const key of series.keys()) if (key === name || key.startsWith(`${name}{`)) return true;
  return false;
}
