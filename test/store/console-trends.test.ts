// The console's trends on both adapters: the funding pool's available outputs over time (an
// output counts from its creation until the ticket that took it was created) and callback
// deliveries per bucket (attempts, successes, median latency).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deliveryTrend, fundingTrend } from '../../src/store/operator/console-trends.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { randomTxid, seedTicket } from '../support/seed-store.js';

describeOnEachDb('console trends', (fresh) => {
  test('funding pool: outputs counted from creation until a ticket takes them', async () => {
    const now = new Date(Math.floor(Date.now() / 1000) * 1000);
    const ago = (s: number) => new Date(now.getTime() - s * 1000);
    const txid = randomTxid();
    const output = (vout: number, created: Date, state: string, ticket: string | null) =>
      fresh.db.query(
        `INSERT INTO funding_outputs (txid, vout, satoshis, script, state, reserved_by, created_at)
         VALUES ($1, $2, 1000, '\\x00', $3, $4, $5)`,
        [txid, vout, state, ticket, created],
      );
    // 10 outputs made 3000 s ago; two spent by tickets made 2000 s ago, one held by a ticket
    // made 500 s ago; 5 more made 1000 s ago; one spent with no ticket left.
    const spender = await seedTicket(fresh.db, { status: 'MINED', createdAt: ago(2000) });
    const holder = await seedTicket(fresh.db, { status: 'BROADCASTING', createdAt: ago(500) });
    for (let v = 0; v < 10; v++)
      await output(
        v,
        ago(3000),
        v < 2 ? 'spent' : v === 2 ? 'reserved' : 'available',
        v < 2 ? spender : v === 2 ? holder : null,
      );
    for (let v = 10; v < 15; v++) await output(v, ago(1000), 'available', null);
    await output(15, ago(3000), 'spent', null);
    const trend = await fundingTrend(fresh.db, now, 3600, 30);
    assert.ok(trend.points.length > 2 && trend.points.length <= 30);
    const at = (secondsAgo: number) => {
      const t = now.getTime() / 1000 - secondsAgo;
      return trend.points.find((p) => p.at >= t)!.available;
    };
    assert.equal(trend.points[0]!.available, 10, 'the first bucket: the ten first outputs');
    assert.equal(at(1500), 8, 'two taken by the ticket made 2000 s ago');
    assert.equal(at(700), 13, 'five more made 1000 s ago');
    assert.equal(trend.points.at(-1)!.available, 12, 'now: the held one is taken too');
    const ascending = trend.points.map((p) => p.at);
    assert.deepEqual(
      ascending,
      [...ascending].sort((a, b) => a - b),
    );
    assert.equal(trend.points.at(-1)!.at, now.getTime() / 1000);
  });

  test('deliveries: attempts, successes and the median latency per bucket', async () => {
    const now = new Date();
    const ticket = await seedTicket(fresh.db, { callbackUrl: 'https://a.example/x' });
    const [event] = await fresh.db.query<{ id: string }>(
      `INSERT INTO events (ticket_id, webhook_id, seq, payload, state) VALUES ($1, 'msg_trend', 1, '{}', 'delivered') RETURNING id::text AS id`,
      [ticket],
    );
    const attempt = (code: number | null, ms: number, secondsAgo: number) =>
      fresh.db.query(
        'INSERT INTO delivery_attempts (event_id, attempted_at, status_code, latency_ms, error) VALUES ($1, $2, $3, $4, $5)',
        [event!.id, new Date(now.getTime() - secondsAgo * 1000), code, ms, code === null ? 'timeout' : null],
      );
    await attempt(200, 100, 7000);
    await attempt(500, 300, 7000);
    await attempt(200, 20, 60);
    await attempt(null, 10_000, 60);
    await attempt(200, 40, 60);
    await attempt(200, 5, 3 * 86_400); // outside the day
    const trend = await deliveryTrend(fresh.db, now, 86_400, 48);
    const total = trend.points.reduce((n, p) => n + p.attempts, 0);
    assert.equal(total, 5);
    const first = trend.points[0]!;
    assert.deepEqual([first.attempts, first.succeeded, first.p50Ms], [2, 1, 200]);
    const last = trend.points.filter((p) => p.attempts > 0).at(-1)!;
    assert.deepEqual([last.attempts, last.succeeded, last.p50Ms], [3, 2, 40]);
    assert.ok(
      trend.points.some((p) => p.attempts === 0 && p.p50Ms === null),
      'empty buckets have no latency',
    );
  });

  test('deliveries: with no attempt in the day, the trend spans the day, empty', async () => {
    // Ten days on: the attempts above are out of the window.
    const now = new Date(Math.floor(Date.now() / 1000) * 1000 + 10 * 86_400_000);
    const trend = await deliveryTrend(fresh.db, now, 86_400, 48);
    assert.ok(trend.buckets.width >= 1800, `buckets of ${trend.buckets.width} s`);
    assert.ok(trend.points[0]!.at <= now.getTime() / 1000 - 86_000, 'the first bucket starts a day ago');
    assert.ok(trend.points.every((p) => p.attempts === 0 && p.p50Ms === null));
  });
});
