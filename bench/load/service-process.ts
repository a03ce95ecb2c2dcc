// The service as a child process for the process-shaped benches (bench:api's production-shaped
// run, bench:service-cpu): `tokenproxy start` on a free port with ARC callbacks, a data folder of
// its own and the bench's flags; node flags from BENCH_SERVICE_NODE_FLAGS, a CPU profile with
// `profileDir`.
import { type AddressInfo, createServer } from 'node:net';
import { BENCH_SERVICE_FLAGS } from '../bench-service.js';
import { startChild } from './processes.js';

export async function startServiceProcess(opts: {
  readonly entry: string;
  readonly dataDir: string;
  readonly port: number;
  /** Settings shared with the devnet's and the setup's commands (database, ledger). */
  readonly shared: readonly string[];
  readonly profileDir?: string;
}): ReturnType<typeof startChild> {
  return startChild(
    'service',
    opts.entry,
    [
      'start',
      '--data-dir',
      opts.dataDir,
      '--log-level',
      'warn',
      '--no-rate-limit-enabled',
      // ARC (the devnet) calls the service back with every status, as in production.
      '--port',
      String(opts.port),
      '--public-base-url',
      `http://127.0.0.1:${opts.port}`,
      '--arc-callback-token',
      'bench-callback-token',
      ...opts.shared,
      ...BENCH_SERVICE_FLAGS,
    ],
    /running at (http:\/\/\S+)/,
    60_000,
    [
      ...(opts.profileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', opts.profileDir]),
      ...(process.env.BENCH_SERVICE_NODE_FLAGS ?? '').split(' ').filter((f) => f !== ''),
    ],
  );
}

/** A port free on the loopback now (the service must know its own URL for ARC's callbacks). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
