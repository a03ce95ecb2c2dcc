// Address webhooks in /metrics, over a real tokenproxy (all roles, PGlite, the devnet): a mint to
// an address two subscriptions watch writes two events (the dispatcher's counter by status); the
// receiver of one answers 204 (a delivered attempt, its latency observed), the other's answers
// 410 (a gone attempt and a subscription disabled for that reason); the tracker's gauges show the
// dispatcher caught up and nothing pending. Every series shows before anything happened (at 0).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiContextOf } from '../../src/compose.js';
import { createApiKey } from '../../src/store/access/api-keys-store.js';
import {
  dispatchLagScores,
  oldestPendingSubscriptionEventAge,
} from '../../src/store/subscriptions/subscription-gauges.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import { startWebhookReceiver, type WebhookReceiver } from '../callbacks/webhook-receiver.js';
import { http } from '../e2e/e2e-http.js';
import { eventually, startTestService, type TestService } from '../e2e/support.js';
import { party } from '../support/token-world.js';

/** The value of one sample (`name{labels}`) in Prometheus text, or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('address webhooks in /metrics', () => {
  let t: TestService;
  let receiver: WebhookReceiver;
  let key: string;
  const holder = party('metrics holder');
  const scrape = async () => (await http(t.url, 'GET', '/metrics', { key: t.adminKey })).text;

  before(async () => {
    t = await startTestService(['--callback-allow', '127.0.0.1', '--subscription-poll-ms', '50']);
    receiver = await startWebhookReceiver((request) => ({ status: request.path === '/gone' ? 410 : 204 }));
    const { db, masterKey } = t.service.parts;
    key = (await createApiKey(db, masterKey, { name: 'wallet', scopes: ['submit'] })).key;
  });
  after(async () => {
    await t?.stop();
    await receiver?.close();
  });

  it('shows every series at 0 before any event', async () => {
    const text = await scrape();
    for (const series of [
      'tokenproxy_subscription_events_total{status="unconfirmed"}',
      'tokenproxy_subscription_delivery_attempts_total{outcome="delivered"}',
      'tokenproxy_subscription_delivery_attempts_total{outcome="gone"}',
      'tokenproxy_subscriptions_disabled_total{reason="gone"}',
      'tokenproxy_subscriptions_disabled_total{reason="failing"}',
    ])
      assert.equal(sample(text, series), 0, series);
    assert.ok(sample(text, 'tokenproxy_subscription_dispatch_lag_scores') !== undefined);
    assert.equal(sample(text, 'tokenproxy_subscription_oldest_pending_seconds'), 0);
  });

  it('counts the events written, the attempts by outcome, their latency and the disabled', async () => {
    for (const path of ['/ok', '/gone']) {
      const created = await http(t.url, 'POST', '/v2/subscriptions', {
        key,
        body: { url: receiver.url(path), addresses: [holder.address] },
      });
      assert.equal(created.status, 201, created.text);
    }
    const { parts } = t.service;
    await mintTokens(apiContextOf(parts), parts.keys.mint, { to: holder.address, amount: 1_000n });
    const text = await eventually(async () => {
      const now = await scrape();
      const delivered = sample(now, 'tokenproxy_subscription_delivery_attempts_total{outcome="delivered"}');
      const gone = sample(now, 'tokenproxy_subscription_delivery_attempts_total{outcome="gone"}');
      return (delivered ?? 0) >= 1 && (gone ?? 0) >= 1 ? now : undefined;
    }, 'a delivered and a gone attempt in /metrics');
    assert.equal(sample(text, 'tokenproxy_subscription_events_total{status="unconfirmed"}'), 2);
    assert.equal(sample(text, 'tokenproxy_subscription_events_total{status="confirmed"}'), 0);
    assert.equal(sample(text, 'tokenproxy_subscriptions_disabled_total{reason="gone"}'), 1);
    assert.equal(sample(text, 'tokenproxy_subscriptions_disabled_total{reason="failing"}'), 0);
    assert.equal(
      sample(text, 'tokenproxy_subscription_delivery_duration_seconds_count{outcome="delivered"}'),
      1,
    );
    assert.equal(sample(text, 'tokenproxy_subscription_delivery_duration_seconds_count{outcome="gone"}'), 1);
    assert.ok(receiver.received.length >= 2);
    // The dispatcher has read the mint's feed record: caught up, and no event waits.
    const settled = await eventually(async () => {
      const now = await scrape();
      return sample(now, 'tokenproxy_subscription_dispatch_lag_scores') === 0 ? now : undefined;
    }, 'the dispatcher caught up');
    assert.equal(sample(settled, 'tokenproxy_subscription_oldest_pending_seconds'), 0);
  });

  it('reads a dispatcher behind the feed as lag, and a pending event as age', async () => {
    // Read inside one transaction that is then rolled back: the dispatcher (polling every 50 ms)
    // cannot catch up between the set-up and the read, and nothing of it stays.
    const { db } = t.service.parts;
    const rolledBack = new Error('rolled back on purpose');
    let read: { lag: bigint; age: number } | undefined;
    await assert.rejects(
      db.transaction(async (tx) => {
        await tx.query('UPDATE subscription_cursor SET score = score - 3 WHERE id = 1');
        await tx.query(
          `UPDATE subscription_events SET state = 'pending', next_attempt_at = now() + interval '1 hour',
                  created_at = now() - interval '2 minutes'
            WHERE id = (SELECT min(id) FROM subscription_events)`,
        );
        read = { lag: await dispatchLagScores(tx), age: await oldestPendingSubscriptionEventAge(tx) };
        throw rolledBack;
      }),
      rolledBack,
    );
    assert.ok(read !== undefined);
    assert.ok(read.lag >= 3n, `the lag: ${read.lag}`);
    assert.ok(read.age >= 120, `the age: ${read.age}`);
  });
});
