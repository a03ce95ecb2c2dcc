// The deliverer against a real receiver on 127.0.0.1, on every store adapter available:
// signatures, the retry schedule, 410, Retry-After, ordering within a ticket, leases, and a
// slow receiver beside fast ones. The clock is moved by hand: nothing sleeps through backoff.
import assert from 'node:assert/strict';
import { after, before, beforeEach, it } from 'node:test';
import { createApiKey } from '../../src/store/access/api-keys-store.js';
import { redeliverTicket } from '../../src/store/callbacks/callback-deliveries.js';
import { leaseDueEvents } from '../../src/store/callbacks/callback-outbox.js';
import type { Db, Row, SqlValue } from '../../src/store/db/db.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import {
  eventsOf,
  newMasterKey,
  type TestClock,
  testClock,
  testDeliverer,
  ticketWithEvents,
} from './outbox-fixtures.js';
import { startWebhookReceiver, verifyWebhook, type WebhookReceiver } from './webhook-receiver.js';

const HOUR = 3_600_000;

describeOnEachDb('deliverer', (fresh) => {
  let receiver: WebhookReceiver;
  const masterKey = newMasterKey();
  let apiKeyId: string;
  let keySecret: string;
  let clock: TestClock;

  before(async () => {
    receiver = await startWebhookReceiver();
  });
  after(async () => {
    await receiver.close();
  });
  beforeEach(async () => {
    // One database per suite (PGlite takes seconds to open), emptied before each test.
    await fresh.db.query('TRUNCATE tickets, events, delivery_attempts, api_keys CASCADE');
    const key = await createApiKey(fresh.db, masterKey, { name: 'wallet', scopes: ['submit'] });
    apiKeyId = key.id;
    keySecret = key.webhookSecret;
    receiver.received.length = 0;
    receiver.script = () => ({ status: 204 });
    clock = testClock(new Date(Date.now() + 60_000)); // events made from now on are due
  });

  it('every callback verifies with standardwebhooks; the ticket callback_secret wins over the key secret', async () => {
    const byKey = await ticketWithEvents(fresh.db, { url: receiver.url('/a'), apiKeyId });
    const own = await ticketWithEvents(fresh.db, {
      url: receiver.url('/b'),
      apiKeyId,
      callbackSecret: { secret: 'shared by the client', masterKey },
      moves: [],
    });
    const deliverer = testDeliverer(fresh.db, masterKey, () => new Date());
    try {
      assert.equal(await deliverer.runDueNow(), 4);
    } finally {
      await deliverer.stop();
    }
    assert.equal(receiver.received.length, 4);
    const a = receiver.received.filter((r) => r.path === '/a');
    assert.deepEqual(
      a.map((r) => (verifyWebhook(keySecret, r) as { status: string }).status),
      ['BROADCASTING', 'SUCCESS', 'MINED'],
    );
    for (const r of a) assert.equal((r.json as { id: string }).id, byKey);
    const b = receiver.received.find((r) => r.path === '/b')!;
    assert.equal((verifyWebhook('shared by the client', b, 'raw') as { id: string }).id, own);
    assert.throws(() => verifyWebhook(keySecret, b));
    const events = await eventsOf(fresh.db, byKey);
    assert.deepEqual(
      a.map((r) => r.headers['webhook-id']),
      events.map((e) => e.webhook_id),
    );
    assert.ok(events.every((e) => e.state === 'delivered' && e.attempts === 1));
  });

  it('500 three times then 200: that event is sent four times, then the next ones, in order', async () => {
    const id = await ticketWithEvents(fresh.db, { url: receiver.url(), apiKeyId });
    let failures = 0;
    receiver.script = () => (failures++ < 3 ? { status: 500, body: 'not now' } : { status: 200 });
    const deliverer = testDeliverer(fresh.db, masterKey, clock);
    try {
      await deliverer.runDueNow();
      assert.equal(receiver.received.length, 1, 'the first attempt; seq 2 waits behind seq 1');
      clock.advance(4_999);
      await deliverer.runDueNow();
      assert.equal(receiver.received.length, 1, 'not before the 5 s retry');
      clock.advance(1);
      await deliverer.runDueNow();
      assert.equal(receiver.received.length, 2);
      for (let i = 0; i < 6; i++) {
        clock.advance(HOUR);
        await deliverer.runDueNow();
      }
    } finally {
      await deliverer.stop();
    }
    const events = await eventsOf(fresh.db, id);
    const ids = receiver.received.map((r) => r.headers['webhook-id']);
    assert.deepEqual(ids, [
      ...Array(4).fill(events[0]!.webhook_id),
      events[1]!.webhook_id,
      events[2]!.webhook_id,
    ]);
    assert.deepEqual(
      receiver.received.map((r) => (r.json as { status: string }).status),
      ['BROADCASTING', 'BROADCASTING', 'BROADCASTING', 'BROADCASTING', 'SUCCESS', 'MINED'],
    );
    assert.deepEqual(
      events.map((e) => [e.state, e.attempts]),
      [
        ['delivered', 4],
        ['delivered', 1],
        ['delivered', 1],
      ],
    );
    const bodies = new Set(receiver.received.slice(0, 4).map((r) => r.body));
    assert.equal(bodies.size, 1, 'every retry carries the same body');
  });

  it('410 Gone stops the ticket: no later event is sent; redelivery sends the latest state', async () => {
    const id = await ticketWithEvents(fresh.db, { url: receiver.url(), apiKeyId });
    receiver.script = () => ({ status: 410 });
    const deliverer = testDeliverer(fresh.db, masterKey, clock);
    try {
      await deliverer.runDueNow();
      clock.advance(2 * HOUR);
      await deliverer.runDueNow();
      assert.equal(receiver.received.length, 1);
      assert.deepEqual(
        (await eventsOf(fresh.db, id)).map((e) => [e.state, e.attempts]),
        [
          ['dead', 1],
          ['dead', 0],
          ['dead', 0],
        ],
      );
      receiver.script = () => ({ status: 200 });
      const queued = await redeliverTicket(fresh.db, id, clock());
      assert.equal(queued.kind, 'queued');
      await deliverer.runDueNow();
    } finally {
      await deliverer.stop();
    }
    assert.equal(receiver.received.length, 2);
    const last = receiver.received[1]!;
    assert.equal((last.json as { status: string }).status, 'MINED');
    assert.notEqual(last.headers['webhook-id'], receiver.received[0]!.headers['webhook-id']);
    assert.equal((await eventsOf(fresh.db, id)).at(-1)?.state, 'delivered');
  });

  it('Retry-After is honoured: no retry before the receiver asked', async () => {
    await ticketWithEvents(fresh.db, { url: receiver.url(), apiKeyId, moves: [] });
    let first = true;
    receiver.script = () => {
      const answer = first ? { status: 503, headers: { 'retry-after': '120' } } : { status: 200 };
      first = false;
      return answer;
    };
    const deliverer = testDeliverer(fresh.db, masterKey, clock);
    try {
      await deliverer.runDueNow();
      clock.advance(119_000);
      await deliverer.runDueNow();
      assert.equal(receiver.received.length, 1);
      clock.advance(1_000);
      await deliverer.runDueNow();
      assert.equal(receiver.received.length, 2);
    } finally {
      await deliverer.stop();
    }
  });

  it('after 24 h of failures the event is failed and the ticket moves on to its next event', async () => {
    const id = await ticketWithEvents(fresh.db, { url: receiver.url(), apiKeyId, moves: ['SUCCESS'] });
    receiver.script = (r) =>
      (r.json as { status: string }).status === 'BROADCASTING' ? { status: 500 } : { status: 200 };
    const deliverer = testDeliverer(fresh.db, masterKey, clock);
    try {
      for (let hour = 0; hour <= 26; hour++) {
        await deliverer.runDueNow();
        clock.advance(HOUR);
      }
    } finally {
      await deliverer.stop();
    }
    const [first, second] = await eventsOf(fresh.db, id);
    assert.equal(first?.state, 'failed');
    assert.ok((first?.attempts ?? 0) >= 24, `attempts over 24 h: ${first?.attempts}`);
    assert.equal(second?.state, 'delivered');
    const statuses = receiver.received.map((r) => (r.json as { status: string }).status);
    assert.equal(statuses.at(-1), 'SUCCESS');
    assert.equal(statuses.filter((s) => s === 'SUCCESS').length, 1);
  });

  it('stop() cuts an attempt in flight short and gives its event back unattempted', async () => {
    const id = await ticketWithEvents(fresh.db, { url: receiver.url(), apiKeyId, moves: [] });
    receiver.script = () => ({ status: 200, hold: new Promise(() => {}) });
    const deliverer = testDeliverer(fresh.db, masterKey, () => new Date(Date.now() + 60_000), {
      pollIntervalMs: 10,
    });
    deliverer.start();
    for (let i = 0; i < 400 && receiver.open === 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(receiver.open, 1, 'the attempt reached the receiver');
    await deliverer.stop();
    const [event] = await fresh.db.query<{ state: string; attempts: number; lease_owner: string | null }>(
      'SELECT state, attempts, lease_owner FROM events WHERE ticket_id = $1',
      [id],
    );
    assert.deepEqual(event, { state: 'pending', attempts: 0, lease_owner: null });
  });

  it('a redirect is an answer to retry: its Location is never called', async () => {
    const elsewhere = await startWebhookReceiver();
    try {
      const id = await ticketWithEvents(fresh.db, { url: receiver.url(), apiKeyId, moves: [] });
      receiver.script = () => ({ status: 307, headers: { location: elsewhere.url() } });
      const deliverer = testDeliverer(fresh.db, masterKey, clock);
      try {
        await deliverer.runDueNow();
      } finally {
        await deliverer.stop();
      }
      assert.equal(elsewhere.received.length, 0);
      const [event] = await eventsOf(fresh.db, id);
      assert.equal(event?.state, 'pending');
      assert.match(event?.last_error ?? '', /^HTTP 307/);
    } finally {
      await elsewhere.close();
    }
  });

  it('a deliverer killed mid-delivery: another delivers the event once the lease ends', async () => {
    const id = await ticketWithEvents(fresh.db, { url: receiver.url(), apiKeyId, moves: [] });
    const taken = await leaseDueEvents(fresh.db, {
      owner: 'killed',
      now: clock(),
      leaseMs: 60_000,
      limit: 10,
    });
    assert.equal(taken.length, 1);
    const survivor = testDeliverer(fresh.db, masterKey, clock, { leaseMs: 60_000 });
    try {
      assert.equal(await survivor.runDueNow(), 0);
      assert.equal(receiver.received.length, 0, 'not while the lease holds');
      clock.advance(60_001);
      assert.equal(await survivor.runDueNow(), 1);
    } finally {
      await survivor.stop();
    }
    assert.equal(receiver.received.length, 1);
    assert.equal((await eventsOf(fresh.db, id))[0]?.state, 'delivered');
  });

  it('an answer later than the deadline is a failed attempt, tried again later', async () => {
    const id = await ticketWithEvents(fresh.db, { url: receiver.url(), apiKeyId, moves: [] });
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    receiver.script = () => ({ status: 200, hold: held });
    const deliverer = testDeliverer(fresh.db, masterKey, clock, { timeoutMs: 200 });
    try {
      await deliverer.runDueNow();
    } finally {
      release();
      await deliverer.stop();
    }
    const [event] = await eventsOf(fresh.db, id);
    assert.equal(event?.state, 'pending');
    assert.equal(event?.last_error, 'no answer within 200 ms');
    assert.equal(event?.next_attempt_at.getTime(), clock().getTime() + 5_000);
  });

  it('one runDueNow delivers a backlog for one receiver many times its slots', async () => {
    for (let i = 0; i < 60; i++)
      await ticketWithEvents(fresh.db, { url: receiver.url(), apiKeyId, moves: [] });
    const deliverer = testDeliverer(fresh.db, masterKey, clock, { concurrency: 8, perOriginLimit: 2 });
    try {
      assert.equal(await deliverer.runDueNow(), 60);
    } finally {
      await deliverer.stop();
    }
    assert.equal(receiver.received.length, 60);
    const rows = await fresh.db.query<{ n: string | number }>(
      "SELECT count(*) AS n FROM events WHERE state = 'delivered'",
    );
    assert.equal(Number(rows[0]?.n), 60);
  });

  it('runDueNow does not stop early when a busy receiver empties while a lease skips it', async () => {
    for (let i = 0; i < 40; i++)
      await ticketWithEvents(fresh.db, { url: receiver.url(), apiKeyId, moves: [] });
    // Leases that skip a busy receiver are slow: everything in hand is answered meanwhile.
    const slowSkips: Db = {
      dialect: fresh.db.dialect,
      transaction: (fn) => fresh.db.transaction(fn),
      close: () => fresh.db.close(),
      async query(sql, params) {
        if (sql.includes('<> ALL') && Array.isArray(params?.[4]) && params[4].length > 0)
          await new Promise((r) => setTimeout(r, 50));
        return fresh.db.query(sql, params);
      },
    };
    const instant = {
      send: async () =>
        ({ kind: 'answered', status: 204, retryAfter: undefined, latencyMs: 0, excerpt: '' }) as const,
      close: async () => {},
    };
    const deliverer = testDeliverer(slowSkips, masterKey, clock, {
      concurrency: 8,
      perOriginLimit: 2,
      sender: instant,
    });
    try {
      assert.equal(await deliverer.runDueNow(), 40);
    } finally {
      await deliverer.stop();
    }
  });

  it('a backlog of one fast receiver is leased in a few statements, its outcomes written in a few more', async () => {
    for (let i = 0; i < 100; i++)
      await ticketWithEvents(fresh.db, { url: receiver.url(), apiKeyId, moves: [] });
    const statements = { lease: 0, write: 0, other: 0 };
    const counting: Db = {
      dialect: fresh.db.dialect,
      transaction: (fn) => fresh.db.transaction(fn),
      close: () => fresh.db.close(),
      query(sql, params) {
        if (sql.includes('WITH candidates')) statements.lease++;
        else if (sql.includes('jsonb_to_recordset')) statements.write++;
        else statements.other++;
        return fresh.db.query(sql, params);
      },
    };
    const instant = {
      send: async () =>
        ({ kind: 'answered', status: 204, retryAfter: undefined, latencyMs: 1, excerpt: '' }) as const,
      close: async () => {},
    };
    const deliverer = testDeliverer(counting, masterKey, clock, { sender: instant });
    try {
      assert.equal(await deliverer.runDueNow(), 100);
    } finally {
      await deliverer.stop();
    }
    // The first lease takes 8 (a receiver not heard from yet), the next the rest, a last one
    // finds nothing; one statement per 8 events (the slots) would be 13 leases or more.
    assert.ok(statements.lease <= 4, `leases: ${statements.lease}`);
    assert.ok(statements.write <= 6, `writes: ${statements.write}`);
    assert.equal(statements.other, 0);
    const rows = await fresh.db.query<{ n: string | number }>(
      "SELECT count(*) AS n FROM events WHERE state = 'delivered' AND attempts = 1",
    );
    assert.equal(Number(rows[0]?.n), 100);
    const attempts = await fresh.db.query<{ n: string | number }>(
      'SELECT count(*) AS n FROM delivery_attempts',
    );
    assert.equal(Number(attempts[0]?.n), 100);
  });

  it('an event held past the point its attempt could outlast the lease goes back unattempted, then is sent', async () => {
    const id = await ticketWithEvents(fresh.db, { url: receiver.url(), apiKeyId, moves: [] });
    const writes: string[] = [];
    let leases = 0;
    // The first lease comes back 100 s late (as if the event had waited in hand that long):
    // 20 s of its 120 s lease are left, less than an attempt of up to 30 s may take.
    const late: Db = {
      dialect: fresh.db.dialect,
      transaction: (fn) => fresh.db.transaction(fn),
      close: () => fresh.db.close(),
      async query<R extends Row>(sql: string, params?: readonly SqlValue[]): Promise<R[]> {
        const rows = await fresh.db.query<R>(sql, params);
        if (sql.includes('WITH candidates') && leases++ === 0) clock.advance(100_000);
        if (sql.includes('jsonb_to_recordset'))
          for (const w of JSON.parse(String(params?.[0])) as { kind: string }[]) writes.push(w.kind);
        return rows;
      },
    };
    const deliverer = testDeliverer(late, masterKey, clock);
    try {
      assert.equal(await deliverer.runDueNow(), 1);
    } finally {
      await deliverer.stop();
    }
    assert.deepEqual(writes, ['release', 'attempt']);
    assert.equal(receiver.received.length, 1);
    const [event] = await eventsOf(fresh.db, id);
    assert.deepEqual([event?.state, event?.attempts], ['delivered', 1]);
  });

  it('one slow receiver does not hold up the others', async () => {
    const slow = await startWebhookReceiver();
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    slow.script = () => ({ status: 200, hold: held });
    const slowTickets: string[] = [];
    for (let i = 0; i < 6; i++)
      slowTickets.push(await ticketWithEvents(fresh.db, { url: slow.url(), apiKeyId, moves: [] }));
    for (let i = 0; i < 6; i++)
      await ticketWithEvents(fresh.db, { url: receiver.url(), apiKeyId, moves: [] });
    const deliverer = testDeliverer(fresh.db, masterKey, clock, { concurrency: 4, perOriginLimit: 2 });
    try {
      const running = deliverer.runDueNow();
      for (let i = 0; i < 200 && receiver.received.length < 6; i++)
        await new Promise((r) => setTimeout(r, 25));
      assert.equal(receiver.received.length, 6, 'every fast delivery went through while the slow ones hung');
      assert.ok(slow.open <= 2, `at most 2 held at the slow receiver, saw ${slow.open}`);
      release();
      await running;
      assert.equal(slow.received.length, 6, 'then the slow receiver had its events, each once');
      for (const ticket of slowTickets)
        assert.equal((await eventsOf(fresh.db, ticket))[0]?.state, 'delivered');
    } finally {
      release();
      await deliverer.stop();
      await slow.close();
    }
  });
});
