// A process killed (kill -9) holding leases and restarted by its supervisor on the same port
// takes its own leases back at start (issue 34; src/process/instance-identity.ts): real
// processes on PostgreSQL, the devnet behind its ARC API, a callback receiver in this process.
// - An api process's funding outputs: every output its killed run held is free again once the
//   restarted process is ready (before: held until the lease ran out, 60 s, the pool short).
// - A deliverer killed mid-delivery: the events it held are delivered again before their
//   leases would have run out (delivered_at earlier than the killed run's lease_until; before,
//   no other deliverer and not its restart could take them until then).
// - Two live processes never share an instance name: the second start is refused, naming the
//   first, and starts once the first stopped.
// Runs only when TEST_DATABASE_URL is set.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Db } from '../../src/store/db/db.js';
import { openPostgresDb } from '../../src/store/db/postgres-db.js';
import { startWebhookReceiver, type WebhookReceiver } from '../callbacks/webhook-receiver.js';
import { eventually } from '../e2e/support.js';
import { type Instance, sharedWorld } from '../support/ledger-world.js';
import { freePort, spawnRoleProcess, startRoleProcess } from '../support/role-process.js';
import { testDatabaseUrl } from '../support/test-databases.js';
import { type ChaosStream, prepareChaosStream, submitTransfer } from './chaos-stream.js';
import { type Supervised, supervise, type UnexpectedExit } from './supervised-roles.js';

describe('a process killed holding leases takes them back when restarted', {
  skip: testDatabaseUrl === undefined,
}, () => {
  const world = sharedWorld('own leases back');
  const unexpected: UnexpectedExit[] = [];
  let receiver: WebhookReceiver;
  let setup: Instance | undefined;
  let stream: ChaosStream;
  let db: Db;
  let api: Supervised;
  let deliverer: Supervised | undefined;
  let flags: string[];
  let sent = 0;
  /** Answers held until let go (a receiver that takes its time): the deliverer holds its leases meanwhile. */
  let letGo: () => void = () => undefined;
  let holding = false;

  before(async () => {
    receiver = await startWebhookReceiver(() => {
      if (!holding) return { status: 204 };
      return { status: 204, hold: new Promise<void>((r) => (letGo = r)) };
    });
    // Its tracker fills the funding pool the transfers below draw from.
    setup = await world.start('api,tracker', ['--callback-allow', '127.0.0.1']);
    await world.ledger.devnet.mine(1);
    stream = await prepareChaosStream(setup.service, world.ledger.devnet, 'own leases back', 8, 2);
    // Its funding leases go back at its stop: from now on only the processes below hold any.
    await setup.stop();
    setup = undefined;
    flags = ['--callback-allow', '127.0.0.1', '--no-rate-limit-enabled', ...world.ledger.flags];
    db = await openPostgresDb(world.databaseUrl, { max: 2 });
    api = await supervise('api', 'api', world.databaseUrl, flags, unexpected);
    await eventually(async () => ((await api.ready()) ? true : undefined), 'the api ready', 1_800);
  });
  after(async () => {
    letGo();
    await deliverer?.stop().catch(() => undefined);
    await api?.stop().catch(() => undefined);
    await setup?.stop().catch(() => undefined);
    await db?.close();
    await receiver?.close();
  });

  const send = async (extra: Record<string, string> = {}) => {
    const answer = await submitTransfer(api.url, stream.key, stream.rawtxs[sent++]!, extra);
    assert.equal(answer.status, 200, answer.text);
    return answer.text;
  };

  it("a restarted api process finds its killed run's funding outputs free at once", async () => {
    await send();
    const held = await db.query<{ txid: string; vout: number; lease_owner: string; lease_until: Date }>(
      `SELECT txid, vout, lease_owner, lease_until FROM funding_outputs
        WHERE state = 'available' AND lease_owner IS NOT NULL`,
    );
    assert.ok(held.length > 0, 'the api process leased funding outputs');
    assert.equal(new Set(held.map((r) => r.lease_owner)).size, 1, 'under one owner');
    assert.match(held[0]!.lease_owner, /^funding@/);

    await api.kill(300);
    await eventually(async () => ((await api.ready()) ? true : undefined), 'the api ready again', 1_800);
    const still = await db.query<{ txid: string; vout: number; lease_owner: string | null }>(
      `SELECT txid, vout, lease_owner FROM funding_outputs
        WHERE (txid, vout) IN (SELECT * FROM unnest($1::text[], $2::int[]))`,
      [held.map((r) => r.txid), held.map((r) => r.vout)],
    );
    assert.deepEqual(
      still.filter((r) => r.lease_owner !== null),
      [],
      `given back at the restart (the killed run's leases ran until ${held[0]!.lease_until.toISOString()})`,
    );
    // And the pool serves from them.
    await send();
  });

  it('a deliverer killed mid-delivery delivers those events again before their leases run out', async () => {
    deliverer = await supervise('deliverer', 'deliverer', world.databaseUrl, flags, unexpected);
    await eventually(
      async () => ((await deliverer!.ready()) ? true : undefined),
      'the deliverer ready',
      1_800,
    );
    holding = true;
    const ticket = await send({ callback_url: receiver.url('/hook') });
    await eventually(async () => (receiver.open > 0 ? true : undefined), 'a delivery in flight', 600);
    const leased = await db.query<{ id: string; lease_owner: string; lease_until: Date }>(
      `SELECT id, lease_owner, lease_until FROM events
        WHERE ticket_id = $1 AND state = 'pending' AND lease_owner IS NOT NULL`,
      [ticket],
    );
    assert.equal(leased.length, 1, 'the deliverer holds the event it is sending');
    assert.match(leased[0]!.lease_owner, /^deliverer@/);

    await deliverer.kill(300);
    holding = false;
    letGo();
    const delivered = await eventually(
      async () => {
        const rows = await db.query<{ state: string; delivered_at: Date | null; lease_owner: string | null }>(
          'SELECT state, delivered_at, lease_owner FROM events WHERE id = $1',
          [leased[0]!.id],
        );
        return rows[0]?.state === 'delivered' ? rows[0] : undefined;
      },
      'the event delivered by the restarted deliverer',
      // Beyond the killed run's 60 s lease: without taking it back, it is delivered, but late.
      1_200,
    );
    assert.ok(
      delivered.delivered_at! < leased[0]!.lease_until,
      `delivered at ${delivered.delivered_at!.toISOString()}; the killed run's lease ran until ${leased[0]!.lease_until.toISOString()}`,
    );
    assert.ok(receiver.received.length >= 2, 'sent again');
    assert.deepEqual(unexpected, [], 'no process exited but those killed');
  });

  it('a second live process under one instance name is refused, naming the first', async () => {
    const name = `twin-${process.pid}`;
    const first = await startRoleProcess('deliverer', world.databaseUrl, [...flags, '--instance-name', name]);
    try {
      await eventually(
        async () =>
          (await fetch(`${first.url}/readyz`).catch(() => null))?.status === 200 ? true : undefined,
        'the first ready',
        1_800,
      );
      const second = await startCapturing('deliverer', [...flags, '--instance-name', name]);
      assert.notEqual(second.code, 0);
      assert.match(
        second.stderr,
        new RegExp(`the instance name ${name} is in use by process ${first.child.pid} on host`),
      );
    } finally {
      await first.stop();
    }
    // Given up at its orderly stop: the name is free at once.
    const again = await startRoleProcess('deliverer', world.databaseUrl, [...flags, '--instance-name', name]);
    try {
      await eventually(
        async () =>
          (await fetch(`${again.url}/readyz`).catch(() => null))?.status === 200 ? true : undefined,
        'the same name ready after the first stopped',
        1_800,
      );
    } finally {
      await again.stop();
    }
  });

  /** A start expected to fail: its exit code and stderr. */
  async function startCapturing(roles: string, extra: readonly string[]) {
    const dataDir = mkdtempSync(join(tmpdir(), 'tokenproxy-twin-'));
    try {
      const child = spawnRoleProcess(
        roles,
        world.databaseUrl,
        extra,
        { port: await freePort(), dataDir },
        { logLevel: 'silent', stderr: 'pipe' },
      );
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
      const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
      clearTimeout(timer);
      return { code, stderr };
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
});
