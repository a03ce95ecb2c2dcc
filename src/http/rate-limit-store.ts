// Where rate limit counts live. A store answers one question atomically: given a client's
// counts for the current and the previous window, count this request when it fits under the
// limit. The in-memory store serves one process; rate-limit-store-redis.ts shares counts
// between instances.
import {
  decide,
  estimatedCount,
  type RateLimitAlgorithm,
  type RateLimitDecision,
  type WindowCounts,
  windowPosition,
} from './rate-limit-window.js';

export interface RateLimitHit {
  /** The client: `key:<id>` or `ip:<address>`. */
  readonly client: string;
  readonly limit: number;
  readonly windowMs: number;
  readonly algorithm: RateLimitAlgorithm;
  readonly nowMs: number;
}

export interface RateLimitStore {
  /** Counts the request when it fits and says what the client has left. */
  hit(hit: RateLimitHit): Promise<RateLimitDecision>;
  close(): Promise<void>;
}

interface Entry {
  index: number;
  current: number;
  previous: number;
}

/** Counts in a Map; entries older than two windows are dropped as the map is swept. */
export function createMemoryRateLimitStore(options: { readonly maxClients?: number } = {}): RateLimitStore {
  const maxClients = options.maxClients ?? 100_000;
  const entries = new Map<string, Entry>();
  let lastSweep = 0;

  function countsOf(entry: Entry | undefined, index: number): WindowCounts {
    if (entry === undefined) return { current: 0, previous: 0 };
    if (entry.index === index) return { current: entry.current, previous: entry.previous };
    if (entry.index === index - 1) return { current: 0, previous: entry.current };
    return { current: 0, previous: 0 };
  }

  function sweep(index: number, force: boolean): void {
    if (!force && index === lastSweep) return;
    lastSweep = index;
    for (const [client, entry] of entries) if (entry.index < index - 1) entries.delete(client);
  }

  return {
    async hit({ client, limit, windowMs, algorithm, nowMs }) {
      const position = windowPosition(nowMs, windowMs);
      sweep(position.index, entries.size >= maxClients);
      const before = countsOf(entries.get(client), position.index);
      const decision = decide(algorithm, limit, windowMs, before, position);
      if (estimatedCount(algorithm, before, position, windowMs) + 1 <= limit) {
        entries.delete(client);
        if (entries.size < maxClients) {
          entries.set(client, {
            index: position.index,
            current: before.current + 1,
            previous: before.previous,
          });
        }
      }
      return decision;
    },
    async close() {
      entries.clear();
    },
  };
}
