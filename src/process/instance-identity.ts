// A process's instance identity: the name its leases are held under (callback events, funding
// outputs), the same after a restart, so that a restarted process takes back at start what its
// killed run held instead of waiting those leases out (up to 60 s: callbacks late, the funding
// pool short). The name is the configured instanceName, else the host and --port (one live
// process per port on a host); a process on port 0 (any free port) has no stable name, only a
// random one per run, and takes nothing back.
// Two live processes never share a name. On PostgreSQL each run registers its name under a
// lease it renews (an InstanceRegistry: store/db/instance-registry.ts, passed in by compose.ts), and a start whose name another live process
// holds is refused. A registration left live by a run of this host that no longer runs (its pid
// is gone, or is this very pid: a container restarted) is taken over at once; one of another
// host only once its lease lapsed. PGlite needs no registry: its data folder has one process.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from './logger.js';

/** What the registration of an instance name says. */
export interface InstanceEntry {
  readonly host: string;
  readonly pid: number;
  /** The run holding the name: random per start. */
  readonly run: string;
  /** ISO time until which the run's lease is live. */
  readonly until: string;
}

/** Where the registrations of instance names are kept, shared by every process of a deployment. */
export interface InstanceRegistry {
  /** The registration of `name`, live or not; null when none. */
  read(name: string): Promise<InstanceEntry | null>;
  /**
   * Writes `entry` for `name`: where there is none (`replacing` null), or where the registration
   * is still the one read (its run is `replacing`). False: another run wrote it meanwhile.
   */
  take(name: string, entry: InstanceEntry, now: Date, replacing: string | null): Promise<boolean>;
  /** Extends the run's lease; false when the registration is no longer its. */
  renew(name: string, run: string, now: Date, until: Date): Promise<boolean>;
  /** Gives the name up: only the run's own registration. */
  release(name: string, run: string): Promise<void>;
}

/** How long a run's registration lasts unless renewed, ms. */
export const INSTANCE_LEASE_MS = 15_000;
const RENEW_EVERY_MS = 3_000;

/** The leases held under an identity, one owner name each. */
export type LeaseKind = 'deliverer' | 'funding';

export interface InstanceIdentity {
  readonly name: string;
  /** Whether the name is the same after a restart (configured, or host and port). */
  readonly stable: boolean;
  /** The owner of this process's leases of one kind: `<kind>@<name>`. */
  leaseOwner(kind: LeaseKind): string;
  /** Stops renewing and gives the registration up (an orderly stop). */
  release(): Promise<void>;
}

export class InstanceInUseError extends Error {
  constructor(
    readonly instance: string,
    readonly holder: InstanceEntry,
  ) {
    super(
      `the instance name ${instance} is in use by process ${holder.pid} on host ${holder.host} (registered until ${holder.until}): ` +
        'two live processes cannot share one, their leases would be taken from each other. Give each process its own ' +
        'instanceName (TOKENPROXY_INSTANCE_NAME, --instance-name) or port; if that process is gone, start again once its registration lapsed',
    );
    this.name = 'InstanceInUseError';
  }
}

/** The stable name of a process: its configured instanceName, else `<host>:<port>`; null on port 0. */
export function instanceNameOf(
  config: { readonly instanceName?: string | undefined; readonly port: number },
  host: string = hostname(),
): string | null {
  if (config.instanceName !== undefined) return config.instanceName;
  if (config.port === 0) return null;
  return `${host.replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 80)}:${config.port}`;
}

/** Names held by runs in this process (a second service in one process may not take one). */
const heldHere = new Set<string>();

export async function claimInstanceIdentity(deps: {
  /** Null where one process alone opens the database (PGlite's data folder): nothing to register. */
  readonly registry: InstanceRegistry | null;
  readonly config: { readonly instanceName?: string | undefined; readonly port: number };
  readonly log: Logger;
  readonly now: () => Date;
  readonly host?: string;
  readonly pid?: number;
}): Promise<InstanceIdentity> {
  const host = deps.host ?? hostname();
  const pid = deps.pid ?? process.pid;
  const stableName = instanceNameOf(deps.config, host);
  const name = stableName ?? `run-${randomUUID()}`;
  const leaseOwner = (kind: LeaseKind) => `${kind}@${name}`;
  const unregistered = { name, stable: stableName !== null, leaseOwner, release: async () => {} };
  if (stableName === null) return unregistered;
  if (heldHere.has(name))
    throw new InstanceInUseError(name, { host, pid, run: 'this process', until: 'its stop' });
  const registry = deps.registry;
  if (registry === null) {
    heldHere.add(name);
    return { ...unregistered, release: async () => void heldHere.delete(name) };
  }

  const run = randomUUID();
  const entryUntil = (now: Date): InstanceEntry => ({
    host,
    pid,
    run,
    until: new Date(now.getTime() + INSTANCE_LEASE_MS).toISOString(),
  });
  for (let attempt = 0; ; attempt++) {
    const now = deps.now();
    const found = await registry.read(name);
    if (found !== null && !takenOver(found, { host, pid, now })) throw new InstanceInUseError(name, found);
    if (await registry.take(name, entryUntil(now), now, found?.run ?? null)) break;
    // Another start of this name wrote it between the read and the write: read it again.
    if (attempt === 2) throw new Error(`could not register the instance name ${name}: it changes hands`);
  }
  heldHere.add(name);
  deps.log.info({ instance: name }, 'instance name registered');

  let lost = false;
  const renewer = setInterval(() => {
    const now = deps.now();
    registry.renew(name, run, now, new Date(now.getTime() + INSTANCE_LEASE_MS)).then(
      (held) => {
        if (held || lost) return;
        lost = true;
        clearInterval(renewer);
        deps.log.error(
          { instance: name },
          'another process registered this instance name after this one missed renewing it: give each process its own instanceName',
        );
      },
      (err) => deps.log.warn({ err, instance: name }, 'renewing the instance name failed; trying again'),
    );
  }, RENEW_EVERY_MS);
  renewer.unref();
  return {
    ...unregistered,
    async release() {
      clearInterval(renewer);
      heldHere.delete(name);
      if (!lost)
        await registry
          .release(name, run)
          .catch((err) =>
            deps.log.warn({ err, instance: name }, 'giving the instance name up failed; it lapses by itself'),
          );
    },
  };
}

/** Whether a start may take the registration `found` over: lapsed, or left by a run of this host that no longer runs. */
function takenOver(found: InstanceEntry, self: { host: string; pid: number; now: Date }): boolean {
  if (new Date(found.until).getTime() < self.now.getTime()) return true;
  if (found.host !== self.host) return false;
  // This very pid, yet not held in this process: an earlier run in a restarted container.
  return found.pid === self.pid || !isAlive(found.pid);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
