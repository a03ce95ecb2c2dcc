// Two deliverers (two processes, each a batch in one transaction) recording attempts of the same
// two subscriptions, met in opposite orders. Their subscriptions were written one at a time in
// the order the batch met them: each transaction held the row the other wanted next, PostgreSQL
// found a deadlock and aborted one batch (its attempts lost, its events sent again once their
// lease ran out). Each now holds the rows it writes in id order first. The transactions take
// turns statement by statement (statement-turns.ts), so they interleave as badly as they can.
// On PostgreSQL only: PGlite runs one transaction at a time, so nothing interleaves.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, it } from 'node:test';
import type { Db } from '../../src/store/db/db.js';
import { openPostgresDb } from '../../src/store/db/postgres-db.js';
import {
  type AttemptWrite,
  insertSubscriptionEvents,
  leaseSubscriptionEvents,
  recordSubscriptionAttempts,
  type SubscriptionOutcome,
} from '../../src/store/subscriptions/subscription-events.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { StatementTurns } from '../support/statement-turns.js';
import { pendingEvent, seedSubscription } from '../support/subscription-fixtures.js';
import { testDatabaseUrl } from '../support/test-databases.js';

const NOW = new Date('2026-11-28T10:00:00Z');
const AN_HOUR_AGO = new Date(NOW.getTime() - 3_600_000);
const DAY_MS = 86_400_000;
const RETRY: SubscriptionOutcome = { kind: 'retry', at: new Date(NOW.getTime() + 60_000) };
const DELIVERED: SubscriptionOutcome = { kind: 'delivered' };

describeOnEachDb(
  'deliverers recording the same subscriptions in opposite orders',
  { only: 'postgres' },
  (fresh) => {
    /** The two deliverers' pools, as two processes have. */
    const deliverers: Db[] = [];
    let score = 0n;

    before(async () => {
      for (let i = 0; i < 2; i++)
        deliverers.push(await openPostgresDb(testDatabaseUrl!, { schema: fresh.schema!, max: 2 }));
    });
    after(() => Promise.all(deliverers.map((db) => db.close())));

    async function subscription(failingSince: Date | null): Promise<string> {
      const id = await seedSubscription(fresh.db, `https://wallet-${randomUUID()}.example/hook`, NOW);
      await fresh.db.query('UPDATE subscriptions SET failing_since = $2 WHERE id = $1', [id, failingSince]);
      return id;
    }

    /** One pending event of each subscription, all leased to `owner`: event id by subscription. */
    async function leaseOneEach(
      owner: string,
      subscriptions: readonly string[],
    ): Promise<Map<string, string>> {
      await insertSubscriptionEvents(
        fresh.db,
        subscriptions.map((subscriptionId) => pendingEvent(subscriptionId, ++score)),
        NOW,
      );
      const leased = await leaseSubscriptionEvents(fresh.db, { owner, now: NOW, leaseMs: 60_000, limit: 10 });
      assert.deepEqual(leased.map((e) => e.subscriptionId).sort(), [...subscriptions].sort());
      return new Map(leased.map((e) => [e.subscriptionId, e.id]));
    }

    /** Deliverer `who`'s batch: an attempt of each subscription, in the order given. */
    async function batch(
      who: number,
      attempts: readonly [string, SubscriptionOutcome][],
    ): Promise<AttemptWrite[]> {
      const owner = `deliverer ${who}`;
      const events = await leaseOneEach(
        owner,
        attempts.map(([id]) => id),
      );
      return attempts.map(([subscriptionId, outcome]) => ({
        eventId: events.get(subscriptionId)!,
        subscriptionId,
        attempt: {
          at: NOW,
          statusCode: outcome.kind === 'delivered' ? 200 : 503,
          latencyMs: 3,
          error: outcome.kind === 'delivered' ? null : 'HTTP 503',
        },
        outcome,
      }));
    }

    /** Records both batches at once, each as its deliverer does, taking turns; answers how each ended. */
    async function recordBoth(batches: readonly AttemptWrite[][]): Promise<PromiseSettledResult<unknown>[]> {
      const turns = new StatementTurns(fresh.db, batches.length);
      return Promise.allSettled(
        batches.map((writes, who) =>
          turns.run(deliverers[who]!, who, (tx) =>
            recordSubscriptionAttempts(tx, `deliverer ${who}`, writes, DAY_MS),
          ),
        ),
      );
    }

    const attemptsOf = async (ids: readonly string[]) =>
      (
        await fresh.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM subscription_delivery_attempts a
           JOIN subscription_events e ON e.id = a.event_id WHERE e.subscription_id = ANY($1::uuid[])`,
          [[...ids]],
        )
      )[0]!.n;

    const failingSince = async (id: string) =>
      (
        await fresh.db.query<{ failing_since: Date | null }>(
          'SELECT failing_since FROM subscriptions WHERE id = $1',
          [id],
        )
      )[0]!.failing_since;

    function assertBothCommitted(results: PromiseSettledResult<unknown>[]): void {
      assert.deepEqual(
        results.map((r) => (r.status === 'fulfilled' ? 'committed' : String(r.reason))),
        ['committed', 'committed'],
      );
    }

    it('failures of both: both batches are recorded, neither aborted by a deadlock', async () => {
      const a = await subscription(null);
      const b = await subscription(null);
      const first = await batch(0, [
        [a, RETRY],
        [b, RETRY],
      ]);
      const second = await batch(1, [
        [b, RETRY],
        [a, RETRY],
      ]);
      assertBothCommitted(await recordBoth([first, second]));
      assert.equal(await attemptsOf([a, b]), 4);
      assert.deepEqual(await failingSince(a), NOW, 'the run of failures starts at the first');
      assert.deepEqual(await failingSince(b), NOW);
    });

    it('one delivered and one failed, crosswise: both batches are recorded, neither aborted by a deadlock', async () => {
      const a = await subscription(AN_HOUR_AGO);
      const b = await subscription(AN_HOUR_AGO);
      const first = await batch(0, [
        [a, DELIVERED],
        [b, RETRY],
      ]);
      const second = await batch(1, [
        [b, DELIVERED],
        [a, RETRY],
      ]);
      assertBothCommitted(await recordBoth([first, second]));
      assert.equal(await attemptsOf([a, b]), 4);
    });
  },
);
