// What rate limits do while the shared store (Redis) is out of reach, as `rateLimitStoreDown`
// says: 'local' counts in this process meanwhile (each api process applies the limits alone, so a
// client may get up to N times its limit across N processes), 'refuse' answers 503 to what the
// limits cover. Either way it is said once in the log when the store goes and once when it comes
// back, and `tokenproxy_rate_limit_store_up` is 0 meanwhile (the alert's series).
import { Counter, Gauge, type Registry } from 'prom-client';
import { AppError } from '../app-error.js';
import { createMemoryRateLimitStore, type RateLimitStore } from './rate-limit-store.js';

export type StoreDownMode = 'local' | 'refuse';

export interface FallbackOptions {
  readonly mode: StoreDownMode;
  readonly registry: Registry;
  readonly log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
  /** How long after a failure the shared store is tried again, ms (requests meanwhile skip it). */
  readonly retryAfterMs?: number;
  readonly nowMs?: () => number;
}

export function withStoreDownMode(shared: RateLimitStore, options: FallbackOptions): RateLimitStore {
  const up = new Gauge({
    name: 'tokenproxy_rate_limit_store_up',
    help: 'Whether the shared rate limit store (Redis) answered the last time it was asked (1) or not (0)',
    registers: [options.registry],
  });
  const downHits = new Counter({
    name: 'tokenproxy_rate_limit_store_down_total',
    help: 'Requests counted while the shared rate limit store was out of reach, by what was done (local, refused)',
    labelNames: ['outcome'],
    registers: [options.registry],
  });
  up.set(1);
  const local = createMemoryRateLimitStore();
  const now = options.nowMs ?? Date.now;
  const retryAfterMs = options.retryAfterMs ?? 5_000;
  let downSince: number | null = null;
  let nextTry = 0;

  const wentDown = (err: unknown) => {
    if (downSince === null) {
      downSince = now();
      up.set(0);
      options.log.warn(
        { err, rateLimitStoreDown: options.mode },
        options.mode === 'local'
          ? 'rate limit store (Redis) out of reach: limits are counted in this process alone until it is back'
          : 'rate limit store (Redis) out of reach: requests the limits cover are refused (503) until it is back',
      );
    }
    nextTry = now() + retryAfterMs;
  };

  return {
    async hit(hit) {
      if (downSince === null || now() >= nextTry) {
        try {
          const decision = await shared.hit(hit);
          if (downSince !== null) {
            options.log.info(
              { downForMs: now() - downSince },
              'rate limit store (Redis) is back: limits shared again',
            );
            downSince = null;
            up.set(1);
          }
          return decision;
        } catch (err) {
          wentDown(err);
        }
      }
      if (options.mode === 'refuse') {
        downHits.inc({ outcome: 'refused' });
        throw new AppError(
          'NOT_READY',
          'rate limits cannot be counted (their store, Redis, is out of reach); retry shortly',
        );
      }
      downHits.inc({ outcome: 'local' });
      return local.hit(hit);
    },
    async close() {
      await Promise.all([shared.close(), local.close()]);
    },
  };
}
