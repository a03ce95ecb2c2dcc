// The deliverer role: sends the callbacks the outbox holds to the receivers' URLs
// (callbacks/deliverer.ts), within the configured deadline, concurrency and allow-list.
import { parseCallbackAllow } from '../callbacks/address-guard.js';
import { createDeliverer, type Deliverer } from '../callbacks/deliverer.js';
import type { Parts } from '../compose.js';

/** `onRound`: told when a look at the outbox or a write of outcomes finishes (liveness). */
export function startDelivererRole(parts: Parts, onRound?: () => void): Deliverer {
  const { config } = parts;
  const deliverer = createDeliverer({
    db: parts.db,
    masterKey: parts.masterKey,
    allow: parseCallbackAllow(config.callbackAllow),
    clock: parts.ctx.now,
    log: parts.logger,
    timeoutMs: config.callbackTimeoutMs,
    concurrency: config.callbackConcurrency,
    perOriginLimit: config.callbackPerReceiver,
    onAttempt: (outcome) => parts.metrics.callbackAttempts.inc({ outcome }),
    ...(onRound !== undefined && { onRound }),
  });
  deliverer.start();
  return deliverer;
}
