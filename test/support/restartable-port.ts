// A port for a server that goes down and comes back on it (a receiver, ARC): one below the
// kernel's ephemeral range. While such a server is down, a port of the ephemeral range can be
// taken by any outgoing connection, even by one to that very port (a TCP self-connect while
// nothing listens, which clients retrying the server make likely), and the restart then fails
// with EADDRINUSE (seen in CI). Below the range only a listener can take it, and listeners that
// ask for any port get one inside the range.
import { readFileSync } from 'node:fs';

function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > 1024) return low;
  } catch {
    // not Linux: the common default
  }
  return 32768;
}

/** A random port below the ephemeral range (at most 20,000 below it, from 10,000 up). */
function restartablePort(): number {
  const low = ephemeralLow();
  const from = Math.max(10_000, low - 20_000);
  return from + Math.floor(Math.random() * Math.max(1, low - from));
}

/** Calls `listen` with restartable ports until one is free (EADDRINUSE: another try); its answer. */
export async function listenRestartable<T>(listen: (port: number) => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await listen(restartablePort());
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || tries >= 50) throw err;
    }
  }
}
