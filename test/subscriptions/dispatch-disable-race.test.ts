// The dispatcher and an owner's disable at once, on PostgreSQL (PGlite runs one transaction at
// a time, so nothing overlaps): a disable that holds the subscription while the dispatcher reads
// a batch makes the dispatcher wait, and the events written then are skipped, not pending; a
// subscription deleted while the batch was read gets no events, and the round does not fail.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, it } from 'node:test';
import { subscriptionEventPage } from '../../src/store/subscriptions/subscription-event-replay.js';
import { dispatchOnce } from '../../src/usecases/subscriptions/dispatch-events.js';
import {
  changeSubscription,
  registerSubscription,
} from '../../src/usecases/subscriptions/manage-subscriptions.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { backendPid, holdOpen, inside, runWhileHeld } from '../support/held-transaction.js';
import { seedTransaction } from '../support/seed-store.js';
import { party } from '../support/token-world.js';

const MASTER = new Uint8Array(randomBytes(32));
const LIMITS = { maxAddresses: 3, perKey: 5 };

describeOnEachDb('the dispatcher and a disable at once', { only: 'postgres' }, (fresh) => {
  before(async () => {
    // Feed records before the subscriptions are not their events.
    await dispatchOnce(fresh.db, new Date());
  });

  const register = async (name: string) => {
    const address = party(`dispatch race ${name}`).address;
    const { subscription } = await registerSubscription(fresh.db, MASTER, LIMITS, {
      apiKeyId: `dispatch-race-${name}`,
      url: 'https://wallet.example/hook',
      events: ['tokens.received.unconfirmed'],
      description: '',
      addresses: [address],
      now: new Date(),
    });
    return { id: subscription.id, address };
  };
  const statesOf = async (subscriptionId: string) =>
    (await subscriptionEventPage(fresh.db, { subscriptionId, from: 0n, order: 'asc', limit: 10 })).map(
      (e) => e.state,
    );

  it('a disable holding the subscription: the dispatcher waits, and writes the event skipped', async () => {
    const sub = await register('disabled');
    await seedTransaction(fresh.db, { outputs: [{ owner: sub.address, amount: 5n }] });
    const disabling = holdOpen(fresh.db, async (tx) => {
      await changeSubscription(inside(fresh.db, tx), sub.id, { enabled: false, now: new Date() });
      return backendPid(tx);
    });
    const round = await runWhileHeld(
      fresh.db,
      disabling,
      () => dispatchOnce(fresh.db, new Date()),
      'the dispatcher to wait for the disable',
    );
    assert.equal(round.events, 1);
    assert.deepEqual(await statesOf(sub.id), ['skipped']);
  });

  it('a subscription deleted while the batch is read gets no event, and the round goes on', async () => {
    const gone = await register('deleted');
    const kept = await register('kept');
    await seedTransaction(fresh.db, {
      outputs: [
        { owner: gone.address, amount: 5n },
        { owner: kept.address, amount: 7n },
      ],
    });
    const deleting = holdOpen(fresh.db, async (tx) => {
      await tx.query('DELETE FROM subscriptions WHERE id = $1', [gone.id]);
      return backendPid(tx);
    });
    const round = await runWhileHeld(
      fresh.db,
      deleting,
      () => dispatchOnce(fresh.db, new Date()),
      'the dispatcher to wait for the delete',
    );
    assert.equal(round.events, 1);
    assert.deepEqual(await statesOf(kept.id), ['pending']);
    assert.deepEqual(await statesOf(gone.id), []);
  });
});
