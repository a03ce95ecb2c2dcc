// bench:callbacks — callback events delivered per second by the deliverer (lease, sign, POST,
// record) to local receivers, against a bare HTTP POST loop (undici, the same connections per
// receiver, the same body, nothing signed or recorded) to the same receivers in the same run.
// Rounds interleave the two so machine load hits both; the figure is the median round. Also
// printed: database statements per event (every statement the deliverer sent, counted by a
// wrapper) and this process's CPU per event. On PGlite always, and on PostgreSQL when
// TEST_DATABASE_URL is set. BENCH_EVENTS, BENCH_ROUNDS and BENCH_RECEIVERS change the run.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { parseCallbackAllow } from '../src/callbacks/address-guard.js';
import { createDeliverer } from '../src/callbacks/deliverer.js';
import { createApiKey } from '../src/store/access/api-keys-store.js';
import type { Db } from '../src/store/db/db.js';
import { testTargets } from '../test/support/test-databases.js';
import { medianBy } from './median.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 8000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const RECEIVERS = Number(process.env.BENCH_RECEIVERS ?? 4);
/** Connections per receiver, both sides: the deliverer's callbackPerReceiver default. */
const PER_RECEIVER = 8;
/** In flight at once over all receivers: the deliverer's callbackConcurrency default. */
const CONCURRENCY = 32;
const log = { info() {}, warn() {}, error: (o: object, m?: string) => console.error(m, o) };

interface Receiver {
  readonly url: string;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Counts the statements sent through it. */
function counting(db: Db): { db: Db; statements: () => number } {
  let statements = 0;
  return {
    statements: () => statements,
    db: {
      dialect: db.dialect,
      close: () => db.close(),
      query(sql, params) {
        statements++;
        return db.query(sql, params);
      },
      transaction(fn) {
        return db.transaction((tx) =>
          fn({
            query(sql, params) {
              statements++;
              return tx.query(sql, params);
            },
          }),
        );
      },
    },
  };
}

/** `count` tickets spread over the receivers, each with one due event carrying a ticket-sized payload. */
async function seedEvents(db: Db, urls: readonly string[], apiKeyId: string, count: number): Promise<void> {
  await db.query('DELETE FROM tickets');
  await db.query(
    `INSERT INTO tickets (id, txid, raw_tx, status, status_rank, callback_url, api_key_id, created_at, updated_at)
     SELECT gen_random_uuid(), md5(i::text || random()::text) || md5(i::text), '\\x00'::bytea, 'BROADCASTING', 10,
            ($1::text[])[1 + i % cardinality($1::text[])], $2, now(), now()
       FROM generate_series(1, $3::int) AS i`,
    [urls, apiKeyId, count],
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
  // The previous round's rows gone and fresh statistics, as autovacuum keeps a live outbox.
  await db.query('VACUUM ANALYZE tickets, events, delivery_attempts');
}

interface DelivererRound {
  readonly perSecond: number;
  readonly statementsPerEvent: number;
  readonly cpuUsPerEvent: number;
}

async function delivererRound(
  store: Db,
  masterKey: Uint8Array,
  urls: readonly string[],
  apiKeyId: string,
): Promise<DelivererRound> {
  await seedEvents(store, urls, apiKeyId, EVENTS);
  const { db, statements } = counting(store);
  const deliverer = createDeliverer({
    db,
    masterKey,
    allow: parseCallbackAllow(['127.0.0.1']),
    log,
    concurrency: CONCURRENCY,
    perOriginLimit: PER_RECEIVER,
  });
  const cpu = process.cpuUsage();
  const started = performance.now();
  const delivered = await deliverer.runDueNow();
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const sent = statements();
  await deliverer.stop();
  if (delivered !== EVENTS) {
    const states = await store.query(
      `SELECT state, attempts, lease_owner IS NOT NULL AS leased, next_attempt_at <= now() AS due, count(*) AS n, min(last_error) AS error
         FROM events GROUP BY 1, 2, 3, 4`,
    );
    throw new Error(`delivered ${delivered} of ${EVENTS}: ${JSON.stringify(states)}`);
  }
  return {
    perSecond: EVENTS / seconds,
    statementsPerEvent: sent / EVENTS,
    cpuUsPerEvent: (used.user + used.system) / EVENTS,
  };
}

async function barePostRound(urls: readonly string[], body: string): Promise<number> {
  const agent = new Agent({ connections: PER_RECEIVER });
  let left = EVENTS;
  const lanesPerReceiver = Math.min(PER_RECEIVER, Math.floor(CONCURRENCY / urls.length)) || 1;
  const started = performance.now();
  const lane = async (url: string) => {
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
  await Promise.all(urls.flatMap((url) => Array.from({ length: lanesPerReceiver }, () => lane(url))));
  const seconds = (performance.now() - started) / 1000;
  await agent.close();
  return EVENTS / seconds;
}

const receivers = await Promise.all(Array.from({ length: RECEIVERS }, startReceiver));
const urls = receivers.map((r) => r.url);
const body = JSON.stringify({ id: 'x', tx_hex: 'ab'.repeat(300), status: 'BROADCASTING' });
try {
  for (const target of testTargets()) {
    const fresh = await target.fresh();
    try {
      const masterKey = new Uint8Array(32).fill(7);
      const key = await createApiKey(fresh.db, masterKey, { name: 'bench', scopes: ['submit'] });
      await barePostRound(urls, body); // warm-up
      await delivererRound(fresh.db, masterKey, urls, key.id);
      const rounds: { ours: DelivererRound; baseline: number }[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        const baseline = await barePostRound(urls, body);
        const ours = await delivererRound(fresh.db, masterKey, urls, key.id);
        rounds.push({ ours, baseline });
      }
      const ratio = (r: (typeof rounds)[number]) => r.ours.perSecond / r.baseline;
      const median = medianBy(rounds, ratio);
      console.log(`${target.name} rounds (ratio): ${rounds.map((r) => ratio(r).toFixed(3)).join(' ')}`);
      console.log(
        `${target.name}: deliverer ${median.ours.perSecond.toFixed(0)} events/s (${EVENTS} events, ${RECEIVERS} receivers, ` +
          `${CONCURRENCY} at once, ${PER_RECEIVER} per receiver); bare POST loop ${median.baseline.toFixed(0)} req/s; ` +
          `ratio ${ratio(median).toFixed(3)}; ${median.ours.statementsPerEvent.toFixed(3)} statements/event; ` +
          `${median.ours.cpuUsPerEvent.toFixed(0)} us CPU/event in this process`,
      );
    } finally {
      await fresh.dispose();
    }
  }
  if (testTargets().length === 1) console.log('postgres: skipped (set TEST_DATABASE_URL)');
} finally {
  await Promise.all(receivers.map((r) => r.close()));
}
