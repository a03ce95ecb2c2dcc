// The deliverer role: sends the callbacks the outbox holds to the receivers' URLs
// (callbacks/deliverer.ts), within the configured deadline, concurrency and allow-list; and
// address webhooks: the dispatcher that makes their events from the change feed
// (usecases/subscriptions/dispatch-events.ts) and their deliverer (callbacks/subscription-deliverer.ts).
import { parseCallbackAllow } from '../callbacks/address-guard.js';
import { createDeliverer, type Deliverer } from '../callbacks/deliverer.js';
import { createSubscriptionDeliverer } from '../callbacks/subscription-deliverer.js';
import type { Parts } from '../compose.js';
import { createDispatcher } from '../usecases/subscriptions/dispatch-events.js';

/** `onRound`: told when a look at the outbox or a write of outcomes finishes (liveness). */
export function startDelivererRole(parts: Parts, onRound?: () => void): Deliverer {
  const { config } = parts;
  const deliverer = createDeliverer({
    db: parts.db,
    masterKey: parts.masterKey,
    allow: parseCallbackAllow(config.callbackAllow),
    clock: parts.ctx.now,
    log: parts.logger,
    // Its instance's, the same after a restart: what a killed run held is taken back at start.
    owner: parts.identity.leaseOwner('deliverer'),
    releaseOwnLeasesAtStart: parts.identity.stable,
    timeoutMs: config.callbackTimeoutMs,
    concurrency: config.callbackConcurrency,
    perOriginLimit: config.callbackPerReceiver,
    onAttempt: (outcome) => parts.metrics.callbackAttempts.inc({ outcome }),
    ...(onRound !== undefined && { onRound }),
  });
  deliverer.start();
  return withAddressWebhooks(parts, deliverer);
}

/** The address webhooks' dispatcher and deliverer, started and stopped with the callbacks' deliverer. */
function withAddressWebhooks(parts: Parts, callbacks: Deliverer): Deliverer {
  const { config } = parts;
  const dispatcher = createDispatcher({
    db: parts.db,
    log: parts.logger,
    now: parts.ctx.now,
    pollMs: config.subscriptionPollMs,
    settings: { holdMs: config.subscriptionHoldMs },
    onWritten: (byStatus) => {
      for (const [status, n] of Object.entries(byStatus)) parts.metrics.subscriptionEvents.inc({ status }, n);
    },
  });
  const webhooks = createSubscriptionDeliverer({
    db: parts.db,
    masterKey: parts.masterKey,
    allow: parseCallbackAllow(config.callbackAllow),
    clock: parts.ctx.now,
    log: parts.logger,
    timeoutMs: config.callbackTimeoutMs,
    concurrency: config.callbackConcurrency,
    perOriginLimit: config.callbackPerReceiver,
    pollIntervalMs: config.subscriptionPollMs,
    disableAfterMs: config.subscriptionDisableAfterMs,
    onAttempt: (outcome, latencyMs) => {
      parts.metrics.subscriptionAttempts.inc({ outcome });
      parts.metrics.subscriptionDeliveryDuration.observe({ outcome }, latencyMs / 1000);
    },
    onDisabled: (reason) => parts.metrics.subscriptionsDisabled.inc({ reason }),
  });
  dispatcher.start();
  webhooks.start();
  return {
    async runDueNow() {
      await dispatcher.runNow();
      return (await callbacks.runDueNow()) + (await webhooks.runDueNow());
    },
    start() {
      callbacks.start();
    },
    async stop() {
      await dispatcher.stop();
      await Promise.all([callbacks.stop(), webhooks.stop()]);
    },
  };
}
