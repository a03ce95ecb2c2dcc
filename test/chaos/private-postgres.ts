// A PostgreSQL cluster of the test's own (the machine's shared cluster serves other tests at the
// same time, so it is never the one restarted): initdb into a temporary folder owned by the
// postgres user, a free loopback port, its socket in that folder; stopped and started again on
// command, and removed at the end.
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface PrivatePostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  readonly url: string;
  readonly port: number;
  /** `pg_ctl stop -m fast`: connections are cut, the server is gone until start(). */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it (if running) and removes its folder. */
  remove(): void;
}

function binDir(): string {
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  if (versions.length === 0) throw new Error('no PostgreSQL under /usr/lib/postgresql');
  return join('/usr/lib/postgresql', versions[0]!, 'bin');
}

function uidOf(user: string): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', user], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = binDir();
  const root = mkdtempSync(join(tmpdir(), 'tokenproxy-chaos-pg-'));
  const data = join(root, 'data');
  const { uid, gid } = uidOf('postgres');
  chownSync(root, uid, gid);
  const argv = (tool: string, args: readonly string[]) => ['-u', 'postgres', '--', join(bin, tool), ...args];
  const asPostgres = (tool: string, args: readonly string[]) =>
    execFileSync('runuser', argv(tool, args), { stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
  const asPostgresAsync = async (tool: string, args: readonly string[]) => {
    await run('runuser', argv(tool, args), { timeout: 60_000 });
  };
  const port = await freePort();
  let running = false;
  try {
    asPostgres('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  } catch (err) {
    rmSync(root, { recursive: true, force: true });
    throw err;
  }
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${root} -c fsync=off`;
  const cluster: PrivatePostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async start() {
      await asPostgresAsync('pg_ctl', [
        '-D',
        data,
        '-o',
        options,
        '-l',
        join(root, 'server.log'),
        '-w',
        'start',
      ]);
      running = true;
    },
    async stop() {
      await asPostgresAsync('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      running = false;
    },
    remove() {
      try {
        if (running) asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        running = false;
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
  try {
    await cluster.start();
  } catch (err) {
    rmSync(root, { recursive: true, force: true });
    throw err;
  }
  return cluster;
}
