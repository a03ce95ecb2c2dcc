// A process's instance identity (src/process/instance-identity.ts): the name its leases are held
// under, the same after a restart, and never two live processes' at once. On PostgreSQL: a
// registration left by a run of this host that no longer runs is taken over at once, one that is
// live (this host's running pid, or another host's live lease) refuses the start, naming it.
// On PGlite: one process per database, no registry. Port 0: a random name per run.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  claimInstanceIdentity,
  INSTANCE_LEASE_MS,
  InstanceInUseError,
  instanceNameOf,
} from '../../src/process/instance-identity.js';
import {
  instanceRegistryOf,
  readInstanceEntry,
  takeInstanceEntry,
} from '../../src/store/db/instance-registry.js';
import { type FreshDb, testTargets } from '../support/test-databases.js';

const quiet = { info() {}, warn() {}, error() {} };
const now = () => new Date();

describe('instance identity: its name', () => {
  it('is the configured name, else host and port; none on port 0', () => {
    assert.equal(instanceNameOf({ instanceName: 'api-a', port: 3001 }, 'h1'), 'api-a');
    assert.equal(instanceNameOf({ port: 3001 }, 'web-1.example'), 'web-1.example:3001');
    assert.equal(instanceNameOf({ port: 0 }, 'h1'), null);
  });
});

for (const target of testTargets()) {
  describe(`instance identity on ${target.name}`, () => {
    let fresh: FreshDb;
    before(async () => {
      fresh = await target.fresh();
    });
    after(async () => fresh.dispose());

    it('port 0: a random name per run, not stable, nothing registered', async () => {
      const a = await claimInstanceIdentity({
        registry: instanceRegistryOf(fresh.db),
        config: { port: 0 },
        log: quiet,
        now,
      });
      const b = await claimInstanceIdentity({
        registry: instanceRegistryOf(fresh.db),
        config: { port: 0 },
        log: quiet,
        now,
      });
      assert.equal(a.stable, false);
      assert.notEqual(a.leaseOwner('deliverer'), b.leaseOwner('deliverer'));
      await a.release();
      await b.release();
    });

    it('the same name twice in one process is refused until the first is released', async () => {
      const config = { instanceName: `twice-${target.name}`, port: 3001 };
      const first = await claimInstanceIdentity({
        registry: instanceRegistryOf(fresh.db),
        config,
        log: quiet,
        now,
      });
      assert.equal(first.stable, true);
      assert.equal(first.leaseOwner('funding'), `funding@twice-${target.name}`);
      await assert.rejects(
        claimInstanceIdentity({ registry: instanceRegistryOf(fresh.db), config, log: quiet, now }),
        InstanceInUseError,
      );
      await first.release();
      const again = await claimInstanceIdentity({
        registry: instanceRegistryOf(fresh.db),
        config,
        log: quiet,
        now,
      });
      await again.release();
    });

    if (target.name !== 'postgres') return;

    const leftLive = async (name: string, host: string, pid: number, untilMs = INSTANCE_LEASE_MS) => {
      const at = new Date();
      const entry = { host, pid, run: `left-${name}`, until: new Date(at.getTime() + untilMs).toISOString() };
      assert.equal(await takeInstanceEntry(fresh.db, name, entry, at, null), true);
    };

    it('a live registration of a run of this host whose pid is gone is taken over at once', async () => {
      // What a process killed a moment ago leaves: its registration, live for 15 s more.
      await leftLive('killed', 'h1', 2 ** 22 + 7);
      const id = await claimInstanceIdentity({
        registry: instanceRegistryOf(fresh.db),
        config: { instanceName: 'killed', port: 1 },
        log: quiet,
        now,
        host: 'h1',
      });
      const entry = await readInstanceEntry(fresh.db, 'killed');
      assert.equal(entry?.pid, process.pid);
      assert.notEqual(entry?.run, 'left-killed');
      await id.release();
      assert.equal(await readInstanceEntry(fresh.db, 'killed'), null, 'given up at the stop');
    });

    it("this very pid on this host (a restarted container's first process) is an earlier run", async () => {
      await leftLive('container', 'h1', process.pid);
      const id = await claimInstanceIdentity({
        registry: instanceRegistryOf(fresh.db),
        config: { instanceName: 'container', port: 1 },
        log: quiet,
        now,
        host: 'h1',
      });
      assert.notEqual((await readInstanceEntry(fresh.db, 'container'))?.run, 'left-container');
      await id.release();
    });

    it("a live process of this host, or another host's live lease, refuses the start, naming it", async () => {
      // The parent of this test process runs.
      await leftLive('running', 'h1', process.ppid);
      await assert.rejects(
        claimInstanceIdentity({
          registry: instanceRegistryOf(fresh.db),
          config: { instanceName: 'running', port: 1 },
          log: quiet,
          now,
          host: 'h1',
        }),
        (err: unknown) =>
          err instanceof InstanceInUseError &&
          err.message.includes(`the instance name running is in use by process ${process.ppid} on host h1`),
      );
      await leftLive('elsewhere', 'h2', 2 ** 22 + 7);
      await assert.rejects(
        claimInstanceIdentity({
          registry: instanceRegistryOf(fresh.db),
          config: { instanceName: 'elsewhere', port: 1 },
          log: quiet,
          now,
          host: 'h1',
        }),
        /in use by process \d+ on host h2/,
      );
    });

    it("another host's lapsed registration is taken over", async () => {
      await leftLive('lapsed', 'h2', 2 ** 22 + 7, -1_000);
      const id = await claimInstanceIdentity({
        registry: instanceRegistryOf(fresh.db),
        config: { instanceName: 'lapsed', port: 1 },
        log: quiet,
        now,
        host: 'h1',
      });
      assert.equal((await readInstanceEntry(fresh.db, 'lapsed'))?.host, 'h1');
      await id.release();
    });
  });
}
