// bench:webhooks — address-webhook events delivered per second: change-feed records made into
// events by the dispatcher (usecases/subscriptions/dispatch-events.ts) and delivered, signed, by
// the subscription deliverer (callbacks/subscription-deliverer.ts) to local receivers, against
// a bare HTTP POST loop (undici, the same connections per receiver, the same body, nothing
// signed or recorded) to the same receivers in the same run. Rounds interleave the two so
// machine load hits both; the figure is the median round. Also printed: the dispatcher alone
// (events written per second). On PGlite always, and on PostgreSQL when TEST_DATABASE_URL is
// set. BENCH_EVENTS, BENCH_ROUNDS and BENCH_RECEIVERS change the run.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { parseCallbackAllow } from '../src/callbacks/address-guard.js';
import { createSubscriptionDeliverer } from '../src/callbacks/subscription-deliverer.js';
import type { Db } from '../src/store/db/db.js';
import { ADDRESS_EVENT_TYPES } from '../src/usecases/subscriptions/address-event.js';
import { dispatchOnce } from '../src/usecases/subscriptions/dispatch-events.js';
import { registerSubscription } from '../src/usecases/subscriptions/manage-subscriptions.js';
import { testTargets } from '../test/support/test-databases.js';
import { party } from '../test/support/token-world.js';
import { medianBy } from './median.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 4000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const RECEIVERS = Number(process.env.BENCH_RECEIVERS ?? 4);
/** Addresses each subscription watches (one subscription per receiver). */
const ADDRESSES = 250;
const PER_RECEIVER = 8;
const CONCURRENCY = 32;
const log = { info() {}, warn() {}, error: (o: object, m?: string) => console.error(m, o) } as never;

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

/** `count` unconfirmed feed records, each paying one watched address (round robin) from an unwatched one. */
async function seedFeed(db: Db, watched: readonly string[], sender: string, count: number): Promise<void> {
  await db.query(
    `WITH r AS MATERIALIZED (
       SELECT i, encode(sha256(($4 || i)::bytea), 'hex') AS txid, nextval('change_score_seq') AS score,
              ($1::text[])[1 + i % cardinality($1::text[])] AS owner
         FROM generate_series(1, $3::int) AS i ORDER BY i
     ), t AS (
       INSERT INTO transactions (txid, raw_tx, senders, receivers, outs, state, score)
       SELECT txid, '\\x00'::bytea, ARRAY[$2::text], ARRAY[owner], '{0}', 'unconfirmed', score FROM r
     ), a AS (
       INSERT INTO transaction_addresses (address, txid, score)
       SELECT owner, txid, score FROM r UNION ALL SELECT $2, txid, score FROM r
     )
     INSERT INTO token_outputs (txid, vout, owner, amount, op, script, satoshis, score)
     SELECT txid, 0, owner, 1000 + i, 'transfer', '\\x76a9'::bytea, 1, score FROM r`,
    [[...watched], sender, count, randomBytes(8).toString('hex')],
  );
}

interface Round {
  readonly perSecond: number;
  readonly dispatchPerSecond: number;
}

async function webhookRound(
  db: Db,
  masterKey: Uint8Array,
  watched: readonly string[],
  sender: string,
): Promise<Round> {
  await seedFeed(db, watched, sender, EVENTS);
  if (db.dialect === 'postgres') await db.query('ANALYZE transactions, transaction_addresses, token_outputs');
  const deliverer = createSubscriptionDeliverer({
    db,
    masterKey,
    allow: parseCallbackAllow(['127.0.0.1']),
    log,
    concurrency: CONCURRENCY,
    perOriginLimit: PER_RECEIVER,
  });
  const started = performance.now();
  let written = 0;
  for (;;) {
    const round = await dispatchOnce(db, new Date(), { batch: 500 });
    written += round.events;
    if (!round.more) break;
  }
  const dispatched = performance.now();
  const delivered = await deliverer.runDueNow();
  const seconds = (performance.now() - started) / 1000;
  await deliverer.stop();
  if (written !== EVENTS || delivered !== EVENTS)
    throw new Error(`wrote ${written}, delivered ${delivered} of ${EVENTS}`);
  return { perSecond: EVENTS / seconds, dispatchPerSecond: EVENTS / ((dispatched - started) / 1000) };
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
const body = JSON.stringify({
  type: 'tokens.received.unconfirmed',
  timestamp: new Date().toISOString(),
  data: {
    txid: 'ab'.repeat(32),
    score: '1',
    address: party('bench body').address,
    amount: '1000',
    tokens: '0.01',
  },
});
try {
  for (const target of testTargets()) {
    const fresh = await target.fresh();
    try {
      const masterKey = new Uint8Array(32).fill(7);
      const watched: string[] = [];
      for (const [r, url] of urls.entries()) {
        const addresses = Array.from({ length: ADDRESSES }, (_, i) => party(`bench ${r} ${i}`).address);
        watched.push(...addresses);
        await registerSubscription(
          fresh.db,
          masterKey,
          { maxAddresses: 10_000, perKey: 100 },
          {
            apiKeyId: 'bench',
            url,
            events: [...ADDRESS_EVENT_TYPES],
            description: '',
            addresses,
            now: new Date(),
          },
        );
      }
      // Round robin over receivers: address i of the list belongs to receiver floor(i / ADDRESSES).
      const interleaved = Array.from({ length: watched.length }, (_, i) => {
        const r = i % RECEIVERS;
        return watched[r * ADDRESSES + Math.floor(i / RECEIVERS)]!;
      });
      const sender = party('bench sender').address;
      await barePostRound(urls, body); // warm-up
      await webhookRound(fresh.db, masterKey, interleaved, sender);
      const rounds: { ours: Round; baseline: number }[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        const baseline = await barePostRound(urls, body);
        const ours = await webhookRound(fresh.db, masterKey, interleaved, sender);
        rounds.push({ ours, baseline });
      }
      const ratio = (r: (typeof rounds)[number]) => r.ours.perSecond / r.baseline;
      const median = medianBy(rounds, ratio);
      console.log(`${target.name} rounds (ratio): ${rounds.map((r) => ratio(r).toFixed(3)).join(' ')}`);
      console.log(
        `${target.name}: address webhooks ${median.ours.perSecond.toFixed(0)} events/s from feed to receiver ` +
          `(${EVENTS} events, ${RECEIVERS} receivers, ${RECEIVERS * ADDRESSES} watched addresses, ${CONCURRENCY} at once, ` +
          `${PER_RECEIVER} per receiver; the dispatcher alone ${median.ours.dispatchPerSecond.toFixed(0)} events/s); ` +
          `bare POST loop ${median.baseline.toFixed(0)} req/s; ratio ${ratio(median).toFixed(3)}`,
      );
    } finally {
      await fresh.dispose();
    }
  }
  if (testTargets().length === 1) console.log('postgres: skipped (set TEST_DATABASE_URL)');
} finally {
  await Promise.all(receivers.map((r) => r.close()));
}
