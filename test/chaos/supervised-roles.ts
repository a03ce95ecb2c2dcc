// A production-shaped deployment's processes under a supervisor of the test's own, as systemd's
// Restart=always runs them: each role process (role-process.ts) keeps its port and data folder
// across restarts (a writer's identity is its folder, ADR 0007; its leases' owner is its host and
// port, src/process/instance-identity.ts; clients and the supervisor's health checks know each
// process by its port), is restarted after a short delay whenever it exits, and a kill -9 is
// the test's own: any other exit is recorded as unexpected.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listenRestartable } from '../support/restartable-port.js';
import { type RoleProcess, startRoleProcess } from '../support/role-process.js';

export interface UnexpectedExit {
  readonly name: string;
  readonly code: number | null;
  readonly signal: string | null;
}

export interface Supervised {
  /** 'api-1', 'tracker', ... */
  readonly name: string;
  readonly roles: string;
  /** `http://127.0.0.1:<port>`, the same after every restart. */
  readonly url: string;
  /** Whether a process is running now (started, not exited). */
  alive(): boolean;
  /** GET /readyz answers 200. */
  ready(): Promise<boolean>;
  /** kill -9 of the running process; the supervisor starts another after `restartDelayMs`. */
  kill(restartDelayMs: number): Promise<void>;
  /** How many processes it has started. */
  readonly starts: number;
  /** Stops supervising and stops the running process (SIGTERM), removing the data folder. */
  stop(): Promise<void>;
}

/** A free port below the ephemeral range, so a restart finds it free (restartable-port.ts). */
async function restartablePort(): Promise<number> {
  return listenRestartable(
    (port) =>
      new Promise<number>((resolve, reject) => {
        const probe = createServer();
        probe.once('error', reject);
        probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(port)));
      }),
  );
}

export async function supervise(
  name: string,
  roles: string,
  databaseUrl: string,
  flags: readonly string[],
  unexpected: UnexpectedExit[],
): Promise<Supervised> {
  const place = {
    port: await restartablePort(),
    dataDir: mkdtempSync(join(tmpdir(), `tokenproxy-drill-${name}-`)),
  };
  let current: RoleProcess | null = null;
  let killing = false;
  let stopped = false;
  let starts = 0;
  let restarting: Promise<void> = Promise.resolve();

  const launch = async (): Promise<void> => {
    if (stopped) return;
    const p = await startRoleProcess(roles, databaseUrl, flags, place);
    starts++;
    current = p;
    void p.exited.then(({ code, signal }) => {
      if (current === p) current = null;
      if (stopped) return;
      if (!killing) {
        unexpected.push({ name, code, signal });
        // The supervisor restarts a process that died on its own as well (Restart=always).
        restarting = new Promise((r) => setTimeout(r, 1_000)).then(launch);
      }
    });
  };
  await launch();

  const url = `http://127.0.0.1:${place.port}`;
  return {
    name,
    roles,
    url,
    alive: () => current !== null && current.child.exitCode === null && current.child.signalCode === null,
    async ready() {
      const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5_000) }).catch(() => null);
      return res?.status === 200;
    },
    async kill(restartDelayMs) {
      const p = current;
      if (p === null) return;
      killing = true;
      p.child.kill('SIGKILL');
      await p.exited;
      killing = false;
      restarting = new Promise((r) => setTimeout(r, restartDelayMs)).then(launch);
    },
    get starts() {
      return starts;
    },
    async stop() {
      stopped = true;
      await restarting.catch(() => undefined);
      await (current as RoleProcess | null)?.stop();
      rmSync(place.dataDir, { recursive: true, force: true });
    },
  };
}
