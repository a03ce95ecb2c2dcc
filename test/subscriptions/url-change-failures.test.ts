// A subscription sent to another URL starts its run of failures over, on each database: the old
// URL's failures, nearly long enough to disable it, say nothing of the new one. Another change
// (its description) keeps the run.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import { subscriptionById } from '../../src/store/subscriptions/subscriptions-store.js';
import {
  changeSubscription,
  registerSubscription,
} from '../../src/usecases/subscriptions/manage-subscriptions.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { party } from '../support/token-world.js';

const MASTER = new Uint8Array(randomBytes(32));
const now = new Date('2026-11-29T08:00:00Z');
const failingFor3Days = new Date(now.getTime() - 3 * 24 * 3_600_000 + 60_000);

describeOnEachDb('a subscription failing at its URL', (fresh) => {
  it('starts its run of failures over at a new URL, and keeps it through other changes', async () => {
    const { subscription } = await registerSubscription(
      fresh.db,
      MASTER,
      { maxAddresses: 10, perKey: 10 },
      {
        apiKeyId: 'k',
        url: 'https://old.wallet.example/hooks',
        events: ['tokens.received.unconfirmed'],
        description: '',
        addresses: [party('url change').address],
        now,
      },
    );
    await fresh.db.query('UPDATE subscriptions SET failing_since = $2 WHERE id = $1', [
      subscription.id,
      failingFor3Days,
    ]);
    await changeSubscription(fresh.db, subscription.id, { description: 'renamed', now });
    assert.deepEqual((await subscriptionById(fresh.db, subscription.id))!.failingSince, failingFor3Days);
    await changeSubscription(fresh.db, subscription.id, { url: 'https://old.wallet.example/hooks', now });
    assert.deepEqual(
      (await subscriptionById(fresh.db, subscription.id))!.failingSince,
      failingFor3Days,
      'the same URL again changes nothing',
    );
    await changeSubscription(fresh.db, subscription.id, { url: 'https://new.wallet.example/hooks', now });
    assert.equal((await subscriptionById(fresh.db, subscription.id))!.failingSince, null);
  });
});
