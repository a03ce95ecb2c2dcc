// The deliverer role: sends the callbacks the outbox holds to the receivers' URLs
// (callbacks/deliverer.ts), within the configured deadline, concurrency and allow-list.
import { parseCallbackAllow } from '../callbacks/address-guard.js';
import { createDeliverer, type Deliverer } from '../callbacks/deliverer.js';
import type { Parts } from '../compose.js';

export function startDelivererRole(parts: Parts): Deliverer {
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
  });
  deliverer.start();
  return deliverer;
}
