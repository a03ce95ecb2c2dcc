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

/**
 * Counts in a Map kept in the order clients were last counted (a counted client is moved to
 * the end), so the oldest are at the front: each hit drops the expired entries there (older
 * than two windows, whose counts no longer matter) and, when the map holds `maxClients`, lets
 * the oldest client go to make room. O(1) amortised per hit; memory stays bounded, and a new
 * client is always counted (a client let go starts over: with 100,000 clients that takes a
 * flood of 100,000 others counted since).
 */
export function createMemoryRateLimitStore(options: { readonly maxClients?: number } = {}): RateLimitStore {
  const maxClients = Math.max(1, options.maxClients ?? 100_000);
  const entries = new Map<string, Entry>();

  function countsOf(entry: Entry | undefined, index: number): WindowCounts {
    if (entry === undefined) return { current: 0, previous: 0 };
    if (entry.index === index) return { current: entry.current, previous: entry.previous };
    if (entry.index === index - 1) return { current: 0, previous: entry.current };
    return { current: 0, previous: 0 };
  }

  /** Drops expired entries from the front; then the oldest while there is no room for one more. */
  function makeRoom(index: number): void {
    for (const [client, entry] of entries) {
      if (entry.index >= index - 1 && entries.size < maxClients) break;
      entries.delete(client);
    }
  }

  return {
    async hit({ client, limit, windowMs, algorithm, nowMs }) {
      const position = windowPosition(nowMs, windowMs);
      const entry = entries.get(client);
      const before = countsOf(entry, position.index);
      const decision = decide(algorithm, limit, windowMs, before, position);
      if (estimatedCount(algorithm, before, position, windowMs) + 1 <= limit) {
        entries.delete(client);
        makeRoom(position.index);
        entries.set(client, {
          index: position.index,
          current: before.current + 1,
          previous: before.previous,
        });
      }
      return decision;
    },
    async close() {
      entries.clear();
    },
  };
}
