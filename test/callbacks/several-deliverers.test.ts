// Several deliverers on one outbox at once (on PostgreSQL each with its own connection pool):
// every event arrives exactly once, and the events of each ticket in seq order.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Deliverer } from '../../src/callbacks/deliverer.js';
import { createApiKey } from '../../src/store/access/api-keys-store.js';
import type { Db } from '../../src/store/db/db.js';
import { openPostgresDb } from '../../src/store/db/postgres-db.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { testDatabaseUrl } from '../support/test-databases.js';
import { newMasterKey, testDeliverer, ticketWithEvents } from './outbox-fixtures.js';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js';

const TICKETS = 30;
const DELIVERERS = 3;

describeOnEachDb('several deliverers at once', (fresh) => {
  const pools: Db[] = [];
  let receiver: WebhookReceiver;
  const masterKey = newMasterKey();
  const tickets: string[] = [];

  before(async () => {
    receiver = await startWebhookReceiver(() => ({ status: 200 }));
    const { id } = await createApiKey(fresh.db, masterKey, { name: 'wallet', scopes: ['submit'] });
    for (let i = 0; i < TICKETS; i++)
      tickets.push(await ticketWithEvents(fresh.db, { url: receiver.url(), apiKeyId: id }));
    for (let i = 0; i < DELIVERERS; i++) {
      pools.push(
        fresh.schema !== undefined && testDatabaseUrl !== undefined
          ? await openPostgresDb(testDatabaseUrl, { schema: fresh.schema, max: 4 })
          : fresh.db,
      );
    }
  });
  after(async () => {
    await receiver.close();
    for (const pool of pools) if (pool !== fresh.db) await pool.close();
  });

  it('deliver every event exactly once, each ticket in order', async () => {
    const deliverers: Deliverer[] = pools.map((db, i) =>
      testDeliverer(db, masterKey, () => new Date(), { owner: `d${i}`, concurrency: 8 }),
    );
    try {
      for (let round = 0; round < 20; round++) {
        const counts = await Promise.all(deliverers.map((d) => d.runDueNow()));
        if (counts.every((n) => n === 0)) break;
      }
    } finally {
      await Promise.all(deliverers.map((d) => d.stop()));
    }
    const ids = receiver.received.map((r) => String(r.headers['webhook-id']));
    const retried = await fresh.db.query(
      `SELECT e.webhook_id, a.status_code, a.error, a.latency_ms FROM delivery_attempts a JOIN events e ON e.id = a.event_id
        WHERE e.attempts > 1 ORDER BY a.id`,
    );
    assert.equal(ids.length, TICKETS * 3, `retried: ${JSON.stringify(retried)}`);
    assert.equal(new Set(ids).size, TICKETS * 3, 'no event twice');
    for (const ticket of tickets) {
      const statuses = receiver.received
        .filter((r) => (r.json as { id: string }).id === ticket)
        .map((r) => (r.json as { status: string }).status);
      assert.deepEqual(statuses, ['BROADCASTING', 'SUCCESS', 'MINED'], ticket);
    }
    const rows = await fresh.db.query<{ state: string; n: string | number }>(
      'SELECT state, count(*) AS n FROM events GROUP BY state',
    );
    assert.deepEqual(
      rows.map((r) => [r.state, Number(r.n)]),
      [['delivered', TICKETS * 3]],
    );
  });
});
