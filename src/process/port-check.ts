// Refuses a taken port before the slow work of a first start (keys, deploy, pool fill): the
// port is bound for a moment and let go, so a second `tokenproxy start` on the same port fails
// in well under a second instead of after ~20 s of deploying. The real server binds it again
// a few seconds later; a process that takes the port in between still fails then, as before.
import { createServer } from 'node:net';

export class PortInUseError extends Error {
  override readonly name = 'PortInUseError';
  constructor(
    readonly host: string,
    readonly port: number,
    readonly code: string,
  ) {
    super(
      code === 'EADDRINUSE'
        ? `port ${port} on ${host} is already in use (another tokenproxy?): stop it or choose another with --port`
        : `cannot listen on ${host}:${port} (${code})`,
    );
  }
}

/** Resolves when `host:port` can be bound (port 0 always can); throws PortInUseError otherwise. */
export function assertPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(new PortInUseError(host, port, err.code ?? 'error')),
    );
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve()));
  });
}
