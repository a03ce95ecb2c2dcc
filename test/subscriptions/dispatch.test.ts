// Address webhooks' dispatcher against the store, on each database: a transfer's change feed
// record becomes one event per watched address and change (received/sent, unconfirmed,
// confirmed, reorged, failed) with the amounts and counterparties a wallet needs; an
// unconfirmed record waits for its ticket to leave BROADCASTING; the replay list pages by
// score; the address bound refuses a change whole; and on PostgreSQL, several dispatchers at
// once on their own pools write each event exactly once.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, it } from 'node:test';
import type { Db } from '../../src/store/db/db.js';
import { openPostgresDb } from '../../src/store/db/postgres-db.js';
import { subscriptionEventPage } from '../../src/store/subscriptions/subscription-event-replay.js';
import { dispatchCursor } from '../../src/store/subscriptions/subscription-feed.js';
import { addressesOfSubscription } from '../../src/store/subscriptions/subscriptions-store.js';
import type { AddressEventPayload } from '../../src/usecases/subscriptions/address-event.js';
import { dispatchOnce } from '../../src/usecases/subscriptions/dispatch-events.js';
import {
  changeSubscription,
  changeSubscriptionAddresses,
  registerSubscription,
  SubscriptionLimitError,
} from '../../src/usecases/subscriptions/manage-subscriptions.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { holdOpen, inside } from '../support/held-transaction.js';
import { restateTransaction, seedTicket, seedTransaction } from '../support/seed-store.js';
import { testDatabaseUrl } from '../support/test-databases.js';
import { party } from '../support/token-world.js';

const MASTER = new Uint8Array(randomBytes(32));
const LIMITS = { maxAddresses: 3, perKey: 5 };
const ALL = [
  'tokens.received.unconfirmed',
  'tokens.received.confirmed',
  'tokens.received.reorged',
  'tokens.received.failed',
  'tokens.sent.unconfirmed',
  'tokens.sent.confirmed',
  'tokens.sent.reorged',
  'tokens.sent.failed',
];
const BLOCK = { height: 812, idx: 3, hash: 'ab'.repeat(32), time: 1_795_780_805 };

async function eventsOf(db: Db, subscriptionId: string) {
  const page = await subscriptionEventPage(db, { subscriptionId, from: 0n, order: 'asc', limit: 1000 });
  return page.map((e) => e.payload as AddressEventPayload);
}

async function register(db: Db, addresses: string[], events = ALL, key = 'key-1') {
  const { subscription } = await registerSubscription(db, MASTER, LIMITS, {
    apiKeyId: key,
    url: 'https://wallet.example/hook',
    events,
    description: '',
    addresses,
    now: new Date(),
  });
  return subscription.id;
}

describeOnEachDb('address webhooks: the dispatcher', (fresh) => {
  const alice = party('dispatch alice').address;
  const bob = party('dispatch bob').address;
  const fee = party('dispatch fee').address;
  let aliceOutput: string;

  before(async () => {
    const mint = await seedTransaction(fresh.db, {
      outputs: [{ owner: alice, amount: 1_000n }],
      block: BLOCK,
    });
    aliceOutput = mint.outpoints[0]!;
    // Feed records before a subscription are not its events.
    await dispatchOnce(fresh.db, new Date());
  });

  it('a transfer: sent and received, unconfirmed, confirmed, reorged, with amounts and counterparties', async () => {
    const id = await register(fresh.db, [alice, bob]);
    const only = await register(fresh.db, [bob], ['tokens.received.confirmed']);
    const transfer = await seedTransaction(fresh.db, {
      spends: [aliceOutput],
      outputs: [
        { owner: bob, amount: 700n },
        { owner: alice, amount: 290n },
        { owner: fee, amount: 10n },
      ],
    });
    assert.equal((await dispatchOnce(fresh.db, new Date())).events, 2);
    // Each change is dispatched before the next (a record keeps only its latest state: a change
    // overtaken before the dispatcher looked is not an event of its own).
    await restateTransaction(fresh.db, transfer.txid, 'mined', BLOCK);
    await dispatchOnce(fresh.db, new Date());
    await restateTransaction(fresh.db, transfer.txid, 'unconfirmed');
    await dispatchOnce(fresh.db, new Date());
    // Dispatching again writes nothing twice.
    assert.equal((await dispatchOnce(fresh.db, new Date())).events, 0);
    const events = await eventsOf(fresh.db, id);
    assert.deepEqual(
      events.map((e) => `${e.data.address === alice ? 'alice' : 'bob'} ${e.type}`),
      [
        'alice tokens.sent.unconfirmed',
        'bob tokens.received.unconfirmed',
        'alice tokens.sent.confirmed',
        'bob tokens.received.confirmed',
        'alice tokens.sent.reorged',
        'bob tokens.received.reorged',
      ],
    );
    const [sent, received] = [events[2]!.data, events[3]!.data];
    assert.deepEqual(
      { ...sent, score: undefined },
      {
        subscriptionId: id,
        txid: transfer.txid,
        score: undefined,
        address: alice,
        direction: 'sent',
        amount: '710',
        tokens: '0.0071',
        counterparties: [bob, fee],
        status: 'confirmed',
        blockHeight: 812,
        blockHash: BLOCK.hash,
        blockTime: BLOCK.time,
      },
    );
    assert.equal(received.amount, '700');
    assert.deepEqual(received.counterparties, [alice]);
    assert.equal(events[4]!.data.blockHeight, null);
    assert.ok(BigInt(events[0]!.data.score) < BigInt(events[2]!.data.score));
    assert.deepEqual(
      (await eventsOf(fresh.db, only)).map((e) => e.type),
      ['tokens.received.confirmed'],
    );
    // A failed record is told only to those told of it before, with their figures.
    await restateTransaction(fresh.db, transfer.txid, 'failed');
    await dispatchOnce(fresh.db, new Date());
    const failed = (await eventsOf(fresh.db, id)).slice(6);
    assert.deepEqual(
      failed.map((e) => [e.type, e.data.amount]),
      [
        ['tokens.sent.failed', '710'],
        ['tokens.received.failed', '700'],
      ],
    );
    assert.equal((await eventsOf(fresh.db, only)).length, 1);
  });

  it('an unconfirmed record waits for its ticket to leave BROADCASTING (or the hold to pass)', async () => {
    const carol = party('dispatch carol').address;
    const id = await register(fresh.db, [carol], ALL, 'key-hold');
    const ticketId = await fresh.db.transaction((tx) => seedTicket(tx, { status: 'BROADCASTING' }));
    const [row] = await fresh.db.query<{ txid: string }>('SELECT txid FROM tickets WHERE id = $1', [
      ticketId,
    ]);
    const txid = row!.txid;
    await seedTransaction(fresh.db, { txid, outputs: [{ owner: carol, amount: 5n }], senders: [alice] });
    await dispatchOnce(fresh.db, new Date());
    assert.equal((await eventsOf(fresh.db, id)).length, 0, 'held while BROADCASTING');
    await fresh.db.query("UPDATE tickets SET status = 'SUCCESS' WHERE id = $1", [ticketId]);
    await dispatchOnce(fresh.db, new Date());
    assert.deepEqual(
      (await eventsOf(fresh.db, id)).map((e) => e.type),
      ['tokens.received.unconfirmed'],
    );
    const other = await fresh.db.transaction((tx) => seedTicket(tx, { status: 'BROADCASTING' }));
    const [late] = await fresh.db.query<{ txid: string }>('SELECT txid FROM tickets WHERE id = $1', [other]);
    await seedTransaction(fresh.db, {
      txid: late!.txid,
      outputs: [{ owner: carol, amount: 6n }],
      senders: [alice],
    });
    await dispatchOnce(fresh.db, new Date(Date.now() + 60_000), { holdMs: 30_000 });
    assert.equal((await eventsOf(fresh.db, id)).length, 2, 'sent anyway once the hold passed');
  });

  it('the replay list pages by score, a score never split, none twice, none skipped', async () => {
    const dave = party('dispatch dave').address;
    const erin = party('dispatch erin').address;
    const id = await register(fresh.db, [dave, erin], ALL, 'key-page');
    for (let i = 0; i < 7; i++)
      await seedTransaction(fresh.db, {
        outputs: [
          { owner: dave, amount: BigInt(i + 1) },
          { owner: erin, amount: 1n },
        ],
        senders: [alice],
      });
    await dispatchOnce(fresh.db, new Date(), { batch: 3 });
    await dispatchOnce(fresh.db, new Date(), { batch: 3 });
    await dispatchOnce(fresh.db, new Date(), { batch: 3 });
    for (const order of ['asc', 'desc'] as const) {
      const seen: string[] = [];
      let from = 0n;
      for (let pages = 0; pages < 20; pages++) {
        const page = await subscriptionEventPage(fresh.db, { subscriptionId: id, from, order, limit: 3 });
        if (page.length === 0) break;
        assert.ok(page.length === 4 || page.length === 2, `${order}: a score's two events stay together`);
        seen.push(...page.map((e) => e.webhookId));
        from = page.at(-1)!.score;
      }
      assert.equal(seen.length, 14, order);
      assert.equal(new Set(seen).size, 14, order);
    }
  });

  it('the address bound refuses a change whole; add, remove and replace', async () => {
    const [a, b, c, d] = ['b1', 'b2', 'b3', 'b4'].map((n) => party(`bound ${n}`).address) as [
      string,
      string,
      string,
      string,
    ];
    await assert.rejects(register(fresh.db, [a, b, c, d], ALL, 'key-bound'), SubscriptionLimitError);
    const id = await register(fresh.db, [a, b], ALL, 'key-bound');
    await assert.rejects(
      changeSubscriptionAddresses(fresh.db, LIMITS, id, { add: [c, d] }),
      SubscriptionLimitError,
    );
    assert.deepEqual(await addressesOfSubscription(fresh.db, id), [a, b].sort());
    assert.equal(await changeSubscriptionAddresses(fresh.db, LIMITS, id, { add: [c], remove: [a] }), 2);
    assert.equal(await changeSubscriptionAddresses(fresh.db, LIMITS, id, { replace: [d] }), 1);
    assert.deepEqual(await addressesOfSubscription(fresh.db, id), [d]);
  });

  it('a disabled subscription gets its events listed, not sent', async () => {
    const frank = party('dispatch frank').address;
    const id = await register(fresh.db, [frank], ALL, 'key-off');
    await changeSubscription(fresh.db, id, { enabled: false, now: new Date() });
    await seedTransaction(fresh.db, { outputs: [{ owner: frank, amount: 9n }], senders: [alice] });
    await dispatchOnce(fresh.db, new Date());
    const page = await subscriptionEventPage(fresh.db, {
      subscriptionId: id,
      from: 0n,
      order: 'asc',
      limit: 10,
    });
    assert.deepEqual(
      page.map((e) => e.state),
      ['skipped'],
    );
  });

  it('a record still in flight when a subscription is created is its event', {
    skip: fresh.target === 'pglite' ? 'PostgreSQL only (PGlite runs one transaction at a time)' : false,
  }, async () => {
    const hana = party('dispatch hana').address;
    // A writer draws its score and stays open; another draws a higher one and commits first.
    const slow = holdOpen(fresh.db, (tx) =>
      seedTransaction(inside(fresh.db, tx), {
        outputs: [{ owner: hana, amount: 4n }],
        senders: [alice],
        block: BLOCK,
      }),
    );
    const inFlight = (await slow.ready).txid;
    await seedTransaction(fresh.db, {
      outputs: [{ owner: fee, amount: 1n }],
      senders: [alice],
      block: BLOCK,
    });
    const id = await register(fresh.db, [hana], ALL, 'key-late');
    slow.commit();
    await slow.ended;
    await dispatchOnce(fresh.db, new Date());
    assert.deepEqual(
      (await eventsOf(fresh.db, id)).map((e) => [e.type, e.data.txid]),
      [['tokens.received.confirmed', inFlight]],
    );
  });

  it('several dispatchers on pools of their own write each event exactly once', {
    skip: fresh.target === 'pglite' ? 'PostgreSQL only (PGlite has one connection)' : false,
  }, async () => {
    const gina = party('dispatch gina').address;
    const racer = party('dispatch racer').address;
    const id = await register(fresh.db, [gina], ALL, 'key-race');
    const pools = await Promise.all(
      [0, 1, 2].map(() => openPostgresDb(testDatabaseUrl!, { schema: fresh.schema!, max: 2 })),
    );
    try {
      let writing = true;
      const dispatchers = pools.map(async (pool) => {
        let written = 0;
        while (writing) written += (await dispatchOnce(pool, new Date(), { batch: 4 })).events;
        written += (await dispatchOnce(pool, new Date(), { batch: 1000 })).events;
        return written;
      });
      const txids: string[] = [];
      let last = 0n;
      for (let i = 0; i < 40; i++) {
        const t = await seedTransaction(fresh.db, {
          outputs: [{ owner: gina, amount: 1n }],
          senders: [racer],
        });
        txids.push(t.txid);
        last = t.score;
      }
      // Every record seen unconfirmed before any is mined (a change overtaken before the
      // dispatchers looked would be no event of its own).
      while ((await dispatchCursor(fresh.db)) < last) await new Promise((r) => setTimeout(r, 20));
      for (const [i, txid] of txids.entries())
        if (i % 3 === 0) await restateTransaction(fresh.db, txid, 'mined', BLOCK);
      writing = false;
      const counts = await Promise.all(dispatchers);
      const events = await subscriptionEventPage(fresh.db, {
        subscriptionId: id,
        from: 0n,
        order: 'asc',
        limit: 1000,
      });
      assert.equal(events.length, 54, 'one event per record change');
      assert.equal(
        counts.reduce((a, b) => a + b, 0),
        54,
        'the dispatchers wrote 54 between them',
      );
      assert.equal(new Set(events.map((e) => e.webhookId)).size, 54);
    } finally {
      await Promise.all(pools.map((p) => p.close()));
    }
  });
});
