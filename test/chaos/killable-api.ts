// An api process of its own that a chaos test kills with SIGKILL and starts again on the same
// port and data folder, and the outside levers that stop it at a chosen point with no hook in the
// service: ARC hanging, or a lock this test holds on a table the next step writes.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { txidOf } from '../../src/crypto/txid.js';
import { eventually } from '../e2e/support.js';
import { freePort, startRoleProcess } from '../support/role-process.js';

export interface KillableApi {
  /** The process's data folder, kept across restarts. */
  readonly dataDir: string;
  /** `http://127.0.0.1:<port>`, the same across restarts; set by the first start. */
  readonly url: string;
  /** Starts the api (on a free port the first time, the same port after) and waits for /healthz. */
  start(): Promise<void>;
  /** SIGKILL, and waits for the process to be gone. */
  kill(): Promise<void>;
  /** For `after`: kills a process still running, removes the data folder. */
  close(): void;
}

/**
 * `--roles api` on `databaseUrl()` with `--no-rate-limit-enabled` and `flags()` (read at each
 * start: the world's database and ledger are known once the test runs).
 */
export function killableApi(
  name: string,
  databaseUrl: () => string,
  flags: () => readonly string[],
): KillableApi {
  const dataDir = mkdtempSync(join(tmpdir(), `tokenproxy-${name}-`));
  let port: number | undefined;
  let child: ChildProcess | null = null;
  return {
    dataDir,
    get url() {
      if (port === undefined) throw new Error('the api has not been started');
      return `http://127.0.0.1:${port}`;
    },
    async start() {
      port ??= await freePort();
      const started = await startRoleProcess('api', databaseUrl(), ['--no-rate-limit-enabled', ...flags()], {
        port,
        dataDir,
      });
      child = started.child;
      await eventually(
        async () => {
          const res = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null);
          return res?.ok === true ? true : undefined;
        },
        'the api process answers',
        600,
      );
    },
    async kill() {
      const dying = child!;
      dying.kill('SIGKILL');
      if (dying.exitCode === null && dying.signalCode === null)
        await new Promise((r) => dying.once('exit', r));
    },
    close() {
      if (child !== null && child.exitCode === null) child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A server on `port` that takes every connection and never answers. */
async function hangOn(port: number): Promise<{ close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return {
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** ARC hanging: the devnet's ARC down and its port answering nothing, until `restore()`. */
export async function hangArc(ledger: {
  arcUrl: string;
  arcDown(): Promise<void>;
  arcUp(): Promise<void>;
}): Promise<{ restore(): Promise<void> }> {
  const arcPort = Number(new URL(ledger.arcUrl).port);
  await ledger.arcDown();
  const hanging = await hangOn(arcPort);
  return {
    async restore() {
      await hanging.close();
      await ledger.arcUp();
    },
  };
}

/** A connection of the test's own holding `lock` in an open transaction until released. */
export async function holdLock(
  url: string,
  lock: string,
): Promise<{ endWaiters(): Promise<number>; release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  await client.query('BEGIN');
  await client.query(lock);
  return {
    /**
     * Ends the sessions waiting on this lock. A killed process's statement already waiting here
     * would otherwise still run, and commit, once the lock is released: PostgreSQL notices a
     * client is gone only when it next reads from it.
     */
    async endWaiters() {
      const ended = await client.query(
        'SELECT pg_terminate_backend(a.pid) FROM pg_stat_activity a WHERE pg_backend_pid() = ANY(pg_blocking_pids(a.pid))',
      );
      return ended.rowCount ?? 0;
    },
    async release() {
      await client.query('ROLLBACK');
      await client.end();
    },
  };
}

export interface DatabaseWatcher {
  read<T extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<T[]>;
  end(): Promise<void>;
}

/** Reads on a connection of their own: locks that stall a service's pool do not stall these. */
export async function watchDatabase(url: string): Promise<DatabaseWatcher> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  return {
    read: async <T extends pg.QueryResultRow>(sql: string, params: unknown[] = []) =>
      (await client.query<T>(sql, params)).rows,
    end: () => client.end(),
  };
}

/** The txid of the ticket that submitted `raw`, once the ledger holds it (mempool or mined). */
export function submittedToLedger(
  watcher: DatabaseWatcher,
  devnet: { status(txid: string): Promise<{ kind: string }> },
  raw: Uint8Array,
  what: string,
): Promise<string> {
  return eventually(
    async () => {
      const [t] = await watcher.read<{ txid: string }>('SELECT txid FROM tickets WHERE submitted_txid = $1', [
        txidOf(raw),
      ]);
      if (t === undefined) return undefined;
      const status = await devnet.status(t.txid);
      return status.kind === 'mempool' || status.kind === 'mined' ? t.txid : undefined;
    },
    what,
    600,
  );
}

/** Mines a block, then waits until no ticket is left short of MINED or FAILED. */
export async function everyTicketAtItsEnd(
  watcher: DatabaseWatcher,
  devnet: { mine(blocks: number): Promise<unknown> },
): Promise<void> {
  await devnet.mine(1);
  await eventually(
    async () =>
      (
        await watcher.read<{ n: string }>(
          "SELECT count(*) AS n FROM tickets WHERE status NOT IN ('MINED', 'FAILED')",
        )
      )[0]!.n === '0'
        ? true
        : undefined,
    'every ticket at its end',
    600,
  );
}
