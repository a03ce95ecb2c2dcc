// bench:callbacks — callback events delivered per second by the deliverer (lease, sign, POST,
// record) to a local receiver, against a bare HTTP POST loop (undici, same concurrency, same
// body, nothing signed or recorded) to the same receiver in the same run. Rounds interleave
// the two so machine load hits both; the figure is the median round. On PGlite always, and on
// PostgreSQL when TEST_DATABASE_URL is set.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { parseCallbackAllow } from '../src/callbacks/address-guard.js';
import { createDeliverer } from '../src/callbacks/deliverer.js';
import { createApiKey } from '../src/store/api-keys-store.js';
import type { Db } from '../src/store/db.js';
import { testTargets } from '../test/store/test-databases.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PER_RECEIVER = 8;
const log = { info() {}, warn() {}, error: (o: object, m?: string) => console.error(m, o) };

async function startReceiver(): Promise<{ url: string; received: () => number; close: () => Promise<void> }> {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received: () => received,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** `count` tickets with a callback URL, each with one due event carrying a ticket-sized payload. */
async function seedEvents(db: Db, url: string, apiKeyId: string, count: number): Promise<void> {
  await db.query('DELETE FROM tickets');
  await db.query(
    `INSERT INTO tickets (id, txid, raw_tx, status, status_rank, callback_url, api_key_id, created_at, updated_at)
     SELECT gen_random_uuid(), md5(i::text || random()::text) || md5(i::text), '\\x00'::bytea, 'BROADCASTING', 10, $1, $2, now(), now()
       FROM generate_series(1, $3::int) AS i`,
    [url, apiKeyId, count],
  );
  await db.query(
    `INSERT INTO events (ticket_id, webhook_id, seq, payload, next_attempt_at)
     SELECT id, 'msg_' || replace(id::text, '-', '') || '_1', 1,
            jsonb_build_object('id', id, 'tx_id', txid, 'tx_hex', repeat('ab', 300), 'action_requested', 'transfer',
                               'status', 'BROADCASTING', 'callback_url', callback_url,
                               'createdAt', created_at, 'updatedAt', updated_at, 'errors', null),
            now() - interval '1 second'
       FROM tickets`,
  );
  await db.query('ANALYZE tickets, events'); // fresh statistics, as autovacuum keeps them on PostgreSQL
}

async function delivererRound(db: Db, masterKey: Uint8Array, url: string, apiKeyId: string): Promise<number> {
  await seedEvents(db, url, apiKeyId, EVENTS);
  const deliverer = createDeliverer({
    db,
    masterKey,
    allow: parseCallbackAllow(['127.0.0.1']),
    log,
    perOriginLimit: PER_RECEIVER,
  });
  const started = performance.now();
  const delivered = await deliverer.runDueNow();
  const seconds = (performance.now() - started) / 1000;
  await deliverer.stop();
  if (delivered !== EVENTS) {
    const states = await db.query(
      `SELECT state, attempts, lease_owner IS NOT NULL AS leased, next_attempt_at <= now() AS due, count(*) AS n, min(last_error) AS error
         FROM events GROUP BY 1, 2, 3, 4`,
    );
    throw new Error(`delivered ${delivered} of ${EVENTS}: ${JSON.stringify(states)}`);
  }
  return EVENTS / seconds;
}

async function barePostRound(url: string, body: string): Promise<number> {
  const agent = new Agent({ connections: PER_RECEIVER });
  let left = EVENTS;
  const started = performance.now();
  const lane = async () => {
    while (left-- > 0) {
      const res = await request(url, {
        dispatcher: agent,
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json' },
      });
      await res.body.dump();
      if (res.statusCode !== 204) throw new Error(`receiver answered ${res.statusCode}`);
    }
  };
  await Promise.all(Array.from({ length: PER_RECEIVER }, lane));
  const seconds = (performance.now() - started) / 1000;
  await agent.close();
  return EVENTS / seconds;
}

const receiver = await startReceiver();
const body = JSON.stringify({ id: 'x', tx_hex: 'ab'.repeat(300), status: 'BROADCASTING' });
try {
  for (const target of testTargets()) {
    const fresh = await target.fresh();
    try {
      const masterKey = new Uint8Array(32).fill(7);
      const key = await createApiKey(fresh.db, masterKey, { name: 'bench', scopes: ['submit'] });
      await barePostRound(receiver.url, body); // warm-up
      await delivererRound(fresh.db, masterKey, receiver.url, key.id);
      const rounds: { ours: number; baseline: number }[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        const baseline = await barePostRound(receiver.url, body);
        const ours = await delivererRound(fresh.db, masterKey, receiver.url, key.id);
        rounds.push({ ours, baseline });
      }
      const sorted = [...rounds].sort((a, b) => a.ours / a.baseline - b.ours / b.baseline);
      const median = sorted[Math.floor(sorted.length / 2)]!;
      console.log(
        `${target.name} rounds (ratio): ${rounds.map((r) => (r.ours / r.baseline).toFixed(3)).join(' ')}`,
      );
      console.log(
        `${target.name}: deliverer ${median.ours.toFixed(0)} events/s (${EVENTS} events, ${PER_RECEIVER} per receiver at once); ` +
          `bare POST loop ${median.baseline.toFixed(0)} req/s; ratio ${(median.ours / median.baseline).toFixed(3)}`,
      );
    } finally {
      await fresh.dispose();
    }
  }
  if (testTargets().length === 1) console.log('postgres: skipped (set TEST_DATABASE_URL)');
} finally {
  await receiver.close();
}
