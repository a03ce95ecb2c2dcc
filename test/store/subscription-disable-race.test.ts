// A delivery's failure disables its subscription once, judged by the subscription as it stands
// when the deliverer holds it. Another writer can hold the subscription while the deliverer
// records a 410 Gone: a second deliverer disabling it too, or its owner enabling it again. Read
// in the same statement as the update, `enabled` was the value from before the wait: the first
// case reported the disable twice (counted and logged twice), the second reported none, and the
// subscription's pending events were left for a later enable to send late. On PostgreSQL only:
// PGlite runs one transaction at a time, so nothing waits.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import {
  insertSubscriptionEvents,
  leaseSubscriptionEvents,
  recordSubscriptionAttempts,
} from '../../src/store/subscriptions/subscription-events.js';
import { subscriptionById } from '../../src/store/subscriptions/subscriptions-store.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { backendPid, holdOpen, runWhileHeld } from '../support/held-transaction.js';
import { pendingEvent, seedSubscription } from '../support/subscription-fixtures.js';

const NOW = new Date('2026-11-28T10:00:00Z');
const OWNER = 'deliverer one';

describeOnEachDb('disabling a subscription another writer holds', { only: 'postgres' }, (fresh) => {
  let score = 0n;

  /** An enabled subscription with `events` pending events, the first leased to OWNER. */
  async function subscriptionWithEvents(events: number): Promise<{ id: string; leased: string }> {
    const id = await seedSubscription(fresh.db, 'https://wallet.example/hook', NOW);
    await insertSubscriptionEvents(
      fresh.db,
      Array.from({ length: events }, () => pendingEvent(id, ++score)),
      NOW,
    );
    const [leased] = await leaseSubscriptionEvents(fresh.db, {
      owner: OWNER,
      now: NOW,
      leaseMs: 60_000,
      limit: 1,
    });
    assert.equal(leased?.subscriptionId, id);
    return { id, leased: leased!.id };
  }

  /** Records a 410 Gone for `leased` while `change` holds the subscription, committed once the record waits. */
  async function goneWhile(sub: { id: string; leased: string }, change: string): Promise<readonly string[]> {
    const held = holdOpen(fresh.db, async (tx) => {
      await tx.query(change, [sub.id, NOW]);
      return backendPid(tx);
    });
    const recording = runWhileHeld(
      fresh.db,
      held,
      () =>
        fresh.db.transaction((tx) =>
          recordSubscriptionAttempts(
            tx,
            OWNER,
            [
              {
                eventId: sub.leased,
                subscriptionId: sub.id,
                attempt: { at: NOW, statusCode: 410, latencyMs: 3, error: 'gone' },
                outcome: { kind: 'gone' },
              },
            ],
            86_400_000,
          ),
        ),
      'the record to wait for the subscription',
    );
    return (await recording).disabled;
  }

  const pending = async (id: string) =>
    Number(
      (
        await fresh.db.query<{ n: string }>(
          "SELECT count(*) AS n FROM subscription_events WHERE subscription_id = $1 AND state = 'pending'",
          [id],
        )
      )[0]!.n,
    );

  it('a subscription another deliverer disabled meanwhile is not reported disabled again', async () => {
    const sub = await subscriptionWithEvents(2);
    const disabled = await goneWhile(
      sub,
      "UPDATE subscriptions SET enabled = false, disabled_at = $2, disabled_reason = 'the other deliverer' WHERE id = $1",
    );
    assert.deepEqual(disabled, [], 'disabled by the other deliverer, not by this record');
    assert.equal((await subscriptionById(fresh.db, sub.id))?.disabledReason, 'the other deliverer');
  });

  it('a subscription its owner enabled meanwhile is disabled by the 410, its pending events skipped', async () => {
    const sub = await subscriptionWithEvents(3);
    await fresh.db.query(
      "UPDATE subscriptions SET enabled = false, disabled_at = $2, disabled_reason = 'earlier' WHERE id = $1",
      [sub.id, NOW],
    );
    const disabled = await goneWhile(
      sub,
      'UPDATE subscriptions SET enabled = true, disabled_at = NULL, disabled_reason = NULL WHERE id = $1 AND $2::timestamptz IS NOT NULL',
    );
    assert.deepEqual(disabled, [sub.id]);
    const after = await subscriptionById(fresh.db, sub.id);
    assert.equal(after?.enabled, false);
    assert.match(after?.disabledReason ?? '', /410 Gone/);
    assert.equal(await pending(sub.id), 0, 'its pending events skipped');
  });
});
