// Every role can be watched (issue 34), over real processes on PostgreSQL: an api process (in
// this process), a tracker-only and a deliverer-only process (each a process of its own, on a
// port of its own), the devnet behind its ARC API. The tracker-only and deliverer-only
// processes answer /healthz, /readyz and /metrics and nothing else; the tracker's serve the
// time to MINED and its rounds, the deliverer's the delivery attempts; the gauges read from the
// database come from the tracker alone; and summing per docs/operations.md (Metrics) gives the
// database's totals: counters and histograms summed over processes, database gauges their max.
// A tracker whose loop hangs (its sweeps wait on a locked table) goes not ready and says why;
// status and the console's Chain panel show the ledger's tip, not the blocks a process saw.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startWebhookReceiver, type WebhookReceiver } from '../callbacks/webhook-receiver.js';
import {
  type ChaosStream,
  mineUntilAllEnded,
  prepareChaosStream,
  submitTransfer,
} from '../chaos/chaos-stream.js';
import { eventually } from '../e2e/support.js';
import { type Instance, sharedWorld } from '../support/ledger-world.js';
import {
  hasMetric,
  parseMetrics,
  type RoleProcess,
  startRoleProcess,
  sumOf,
} from '../support/role-process.js';
import { testDatabaseUrl } from '../support/test-databases.js';

const TOKEN = 'metrics-token-of-the-roles-suite';
const TRANSFERS = 6;

async function scrape(url: string): Promise<Map<string, number>> {
  const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(res.status, 200, `${url}/metrics: ${res.status}`);
  return parseMetrics(await res.text());
}

async function readyz(url: string): Promise<number> {
  return (await fetch(`${url}/readyz`).catch(() => ({ status: 0 }))).status;
}

describe('every role can be watched: health and metrics of role-only processes', {
  skip: testDatabaseUrl === undefined,
}, () => {
  const world = sharedWorld('roles watched');
  let api: Instance;
  let tracker: RoleProcess | undefined;
  let deliverer: RoleProcess | undefined;
  let receiver: WebhookReceiver;
  let stream: ChaosStream;
  let flags: string[] = [];

  before(async () => {
    receiver = await startWebhookReceiver();
    api = await world.start('api', ['--metrics-token', TOKEN, '--callback-allow', '127.0.0.1']);
    await world.ledger.devnet.mine(1);
    flags = [
      '--metrics-token',
      TOKEN,
      '--tracker-poll-ms',
      '200',
      '--callback-allow',
      '127.0.0.1',
      ...world.ledger.flags,
    ];
    tracker = await startRoleProcess('tracker', world.databaseUrl, flags);
    deliverer = await startRoleProcess('deliverer', world.databaseUrl, flags);
    for (const p of [tracker, deliverer])
      await eventually(async () => ((await readyz(p.url)) === 200 ? true : undefined), `${p.url} ready`, 900);
    stream = await prepareChaosStream(api.service, world.ledger.devnet, 'roles watched', TRANSFERS);
    for (const rawtx of stream.rawtxs) {
      const answer = await submitTransfer(api.url, stream.key, rawtx, {
        callback_url: receiver.url('/hook'),
      });
      assert.equal(answer.status, 200, answer.text);
    }
    await mineUntilAllEnded(stream.observed, 'the transfers MINED');
    // Each transfer's callbacks (SUCCESS and MINED at least) reach the receiver.
    await eventually(
      async () => (receiver.received.length >= 2 * TRANSFERS ? true : undefined),
      'the callbacks delivered',
      600,
    );
  });
  after(async () => {
    await tracker?.stop();
    await deliverer?.stop();
    await receiver?.close();
  });

  it('a process without the api role answers /healthz, /readyz and /metrics, and nothing else', async () => {
    for (const p of [tracker!, deliverer!]) {
      assert.equal((await fetch(`${p.url}/healthz`)).status, 200);
      assert.equal(await readyz(p.url), 200);
      const openapi = await fetch(`${p.url}/openapi.json`);
      assert.equal(openapi.status, 404, 'no api routes');
      assert.match(openapi.headers.get('content-type') ?? '', /problem\+json/);
      assert.equal((await fetch(`${p.url}/metrics`)).status, 401, 'metrics need the token or an admin key');
    }
  });

  it('the tracker serves the time to MINED and its rounds; the deliverer the delivery attempts', async () => {
    const t = await scrape(tracker!.url);
    assert.ok(sumOf(t, 'tokenproxy_ticket_time_to_mined_seconds_count') > 0, 'MINED observed by the tracker');
    assert.ok(sumOf(t, 'tokenproxy_tracker_rounds_total', { outcome: 'ok' }) > 0, 'tracker rounds');
    assert.ok(sumOf(t, 'tokenproxy_tracker_round_duration_seconds_count') > 0);
    assert.equal(sumOf(t, 'tokenproxy_role_ready', { role: 'tracker' }), 1);
    assert.ok(
      sumOf(t, 'tokenproxy_role_last_round_timestamp_seconds', { role: 'tracker' }) > Date.now() / 1000 - 60,
    );
    const d = await scrape(deliverer!.url);
    assert.ok(
      sumOf(d, 'tokenproxy_callback_delivery_attempts_total', { outcome: 'delivered' }) >= 2 * TRANSFERS,
      'deliveries counted by the deliverer',
    );
    assert.equal(sumOf(d, 'tokenproxy_role_ready', { role: 'deliverer' }), 1);
    const a = await scrape(api.url);
    assert.equal(sumOf(a, 'tokenproxy_callback_delivery_attempts_total'), 0, 'the api delivers nothing');
    assert.equal(sumOf(a, 'tokenproxy_role_ready', { role: 'api' }), 1);
  });

  it('database gauges come from the tracker alone; summing per the docs gives the database totals', async () => {
    const db = api.service.parts.db;
    const all = [await scrape(api.url), await scrape(tracker!.url), await scrape(deliverer!.url)];
    const [a, t, d] = all as [Map<string, number>, Map<string, number>, Map<string, number>];
    for (const gauge of [
      'tokenproxy_tickets',
      'tokenproxy_funding_pool_outputs',
      'tokenproxy_supply_imbalance_units',
    ]) {
      assert.ok(hasMetric(t, gauge), `the tracker exports ${gauge}`);
      assert.ok(!hasMetric(a, gauge) && !hasMetric(d, gauge), `only the tracker exports ${gauge}`);
    }
    const count = async (sql: string) => Number((await db.query<{ n: string }>(sql))[0]!.n);
    // The last callbacks may still be on their way: read the processes and the database again
    // until nothing moves between two reads (a double count would never settle), then compare.
    const reading = async () => {
      const scraped = [await scrape(api.url), await scrape(tracker!.url), await scrape(deliverer!.url)];
      return {
        mined: await count("SELECT count(*)::text AS n FROM tickets WHERE status = 'MINED'"),
        // Database gauges: max over processes (one tracker here; several would agree).
        minedGauge: Math.max(...scraped.map((m) => sumOf(m, 'tokenproxy_tickets', { status: 'MINED' }))),
        imbalance: sumOf(scraped[1]!, 'tokenproxy_supply_imbalance_units'),
        // Counters and histograms: the sum over processes.
        minedSum: scraped.reduce((s, m) => s + sumOf(m, 'tokenproxy_ticket_time_to_mined_seconds_count'), 0),
        delivered: await count(
          'SELECT count(*)::text AS n FROM delivery_attempts WHERE status_code BETWEEN 200 AND 299',
        ),
        deliveredSum: scraped.reduce(
          (s, m) => s + sumOf(m, 'tokenproxy_callback_delivery_attempts_total', { outcome: 'delivered' }),
          0,
        ),
      };
    };
    let last = await reading();
    for (let i = 0; i < 50; i++) {
      await new Promise((r) => setTimeout(r, 200));
      const next = await reading();
      const still = JSON.stringify(next) === JSON.stringify(last);
      last = next;
      if (still && next.delivered === next.deliveredSum) break;
    }
    assert.equal(last.minedGauge, last.mined);
    assert.equal(last.imbalance, 0, 'the supply balances');
    assert.equal(last.minedSum, last.mined, 'each first MINED counted once, in the process that recorded it');
    assert.equal(last.deliveredSum, last.delivered);
  });

  it("status and the console's Chain panel show the ledger's tip, over ARC, blocks without tickets too", async () => {
    // Issue 34: each process showed the highest block it had seen mine a ticket (one showed 0).
    await world.ledger.devnet.mine(2);
    const tip = await world.ledger.devnet.tip();
    const ask = async (path: string) => {
      const res = await fetch(`${api.url}${path}`, { headers: { authorization: `Bearer ${api.adminKey}` } });
      assert.equal(res.status, 200, path);
      return (await res.json()) as { tip: { height: number; hash: string } | null };
    };
    for (const path of ['/v2/admin/status', '/v2/admin/console/chain']) {
      const answer = await ask(path);
      assert.deepEqual(
        { height: answer.tip?.height, hash: answer.tip?.hash },
        { height: tip.height, hash: tip.hash },
        path,
      );
    }
  });

  it('a tracker whose loop hangs goes not ready, says why, and is ready again once it moves', async () => {
    const slow = await startRoleProcess('tracker', world.databaseUrl, [
      ...flags,
      '--readiness-round-ms',
      '3000',
    ]);
    try {
      await eventually(async () => ((await readyz(slow.url)) === 200 ? true : undefined), 'ready', 900);
      // Its sweeps wait on the tickets table as long as this transaction holds it: a hung loop.
      await api.service.parts.db.transaction(async (tx) => {
        await tx.query('LOCK TABLE tickets IN ACCESS EXCLUSIVE MODE');
        const answer = await eventually(
          async () => {
            const res = await fetch(`${slow.url}/readyz`);
            return res.status === 503 ? ((await res.json()) as { code: string; detail: string }) : undefined;
          },
          'not ready while its loop hangs',
          150,
        );
        assert.equal(answer.code, 'NOT_READY');
        assert.match(answer.detail, /^the tracker has finished no round for \d+ s \(bound 3 s\)$/);
        assert.equal((await fetch(`${slow.url}/healthz`)).status, 200, 'alive all the same');
      });
      await eventually(async () => ((await readyz(slow.url)) === 200 ? true : undefined), 'ready again', 300);
      assert.equal(sumOf(await scrape(slow.url), 'tokenproxy_role_ready', { role: 'tracker' }), 1);
    } finally {
      await slow.stop();
    }
  });
});
