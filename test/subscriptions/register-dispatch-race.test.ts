// A registration, or an address added to a subscription, and the dispatcher at once, on
// PostgreSQL (PGlite runs one transaction at a time, so nothing overlaps): a record committed
// while the write is in flight scores above the subscription's start (or the cursor), so it is
// the subscription's event. The dispatcher waits for the write rather than reading past the
// record before the subscription or its new address is visible.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, it } from 'node:test';
import type { Db } from '../../src/store/db/db.js';
import { subscriptionEventPage } from '../../src/store/subscriptions/subscription-event-replay.js';
import { dispatchOnce } from '../../src/usecases/subscriptions/dispatch-events.js';
import {
  changeSubscriptionAddresses,
  registerSubscription,
} from '../../src/usecases/subscriptions/manage-subscriptions.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { backendPid, holdOpen, inside, runWhileHeld } from '../support/held-transaction.js';
import { seedTransaction } from '../support/seed-store.js';
import { party } from '../support/token-world.js';

const MASTER = new Uint8Array(randomBytes(32));
const LIMITS = { maxAddresses: 3, perKey: 5 };

describeOnEachDb('a registration and the dispatcher at once', { only: 'postgres' }, (fresh) => {
  before(async () => {
    // Feed records before the subscription are not its events.
    await dispatchOnce(fresh.db, new Date());
  });

  it('a record committed while a registration is in flight is its event', async () => {
    const address = party('register race').address;
    const registering = holdOpen(fresh.db, async (tx) => {
      const held: Db = { ...inside(fresh.db, tx), query: (sql, params) => tx.query(sql, params) };
      const { subscription } = await registerSubscription(held, MASTER, LIMITS, {
        apiKeyId: 'register-race',
        url: 'https://wallet.example/hook',
        events: ['tokens.received.unconfirmed'],
        description: '',
        addresses: [address],
        now: new Date(),
      });
      assert.ok(subscription.id !== '');
      return backendPid(tx);
    });
    await registering.ready;
    // A transfer to the address commits while the registration is still open.
    await seedTransaction(fresh.db, { outputs: [{ owner: address, amount: 5n }] });
    await runWhileHeld(
      fresh.db,
      registering,
      () => dispatchOnce(fresh.db, new Date()),
      'the dispatcher to wait for the registration',
    );
    await dispatchOnce(fresh.db, new Date());
    const [sub] = await fresh.db.query<{ id: string }>('SELECT id FROM subscriptions WHERE api_key_id = $1', [
      'register-race',
    ]);
    const events = await subscriptionEventPage(fresh.db, {
      subscriptionId: sub!.id,
      from: 0n,
      order: 'asc',
      limit: 10,
    });
    assert.deepEqual(
      events.map((e) => e.state),
      ['pending'],
    );
  });

  it('a record committed while an address is being added is its event', async () => {
    const first = party('add race first').address;
    const added = party('add race added').address;
    const { subscription } = await registerSubscription(fresh.db, MASTER, LIMITS, {
      apiKeyId: 'add-race',
      url: 'https://wallet.example/hook',
      events: ['tokens.received.unconfirmed'],
      description: '',
      addresses: [first],
      now: new Date(),
    });
    await dispatchOnce(fresh.db, new Date());
    const adding = holdOpen(fresh.db, async (tx) => {
      const held: Db = { ...inside(fresh.db, tx), query: (sql, params) => tx.query(sql, params) };
      assert.equal(await changeSubscriptionAddresses(held, LIMITS, subscription.id, { add: [added] }), 2);
      return backendPid(tx);
    });
    await adding.ready;
    // A transfer to the added address commits while the change is still open.
    await seedTransaction(fresh.db, { outputs: [{ owner: added, amount: 7n }] });
    await runWhileHeld(
      fresh.db,
      adding,
      () => dispatchOnce(fresh.db, new Date()),
      'the dispatcher to wait for the address change',
    );
    await dispatchOnce(fresh.db, new Date());
    const events = await subscriptionEventPage(fresh.db, {
      subscriptionId: subscription.id,
      from: 0n,
      order: 'asc',
      limit: 10,
    });
    assert.deepEqual(
      events.map((e) => [(e.payload as { data: { address: string } }).data.address, e.state]),
      [[added, 'pending']],
    );
  });
});
