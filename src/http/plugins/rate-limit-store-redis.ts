// Rate limit counts shared through Redis: one key per client and window
// (`<prefix><client>:<window index>`), read and counted in one Lua script so instances
// never race. The window position comes from the caller's clock.
import { Redis } from 'ioredis';
import type { RateLimitStore } from './rate-limit-store.js';
import { decide, windowPosition } from './rate-limit-window.js';

/** Returns {counted, current, previous}: counts the hit only when the weighted count fits. */
const HIT_SCRIPT = `
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local previous = 0
if ARGV[4] == 'sliding' then previous = tonumber(redis.call('GET', KEYS[2]) or '0') end
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local elapsed = tonumber(ARGV[3])
local estimate = current
if ARGV[4] == 'sliding' then estimate = previous * (window - elapsed) / window + current end
if estimate + 1 > limit then return {0, current, previous} end
redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], window * 2)
return {1, current, previous}
`;

export interface RedisRateLimitOptions {
  readonly url: string;
  /** Key prefix (tests use a unique one). */
  readonly prefix?: string;
  /** How long a command may take before the request is let through; ms. */
  readonly commandTimeoutMs?: number;
}

/** Connects (fails when Redis cannot be reached) and returns the shared store. */
export async function createRedisRateLimitStore(options: RedisRateLimitOptions): Promise<RateLimitStore> {
  const prefix = options.prefix ?? 'tokenproxy:ratelimit:';
  const redis = new Redis(options.url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: options.commandTimeoutMs ?? 1000,
  });
  redis.on('error', () => undefined); // connection errors surface as failed commands
  redis.defineCommand('tokenproxyRateHit', { numberOfKeys: 2, lua: HIT_SCRIPT });
  try {
    await redis.connect();
  } catch (err) {
    redis.disconnect();
    throw new Error(`rate limits: cannot reach Redis at ${withoutPassword(options.url)} (${String(err)})`);
  }
  const run = (
    redis as unknown as {
      tokenproxyRateHit(...args: (string | number)[]): Promise<[number, number, number]>;
    }
  ).tokenproxyRateHit.bind(redis);

  return {
    async hit({ client, limit, windowMs, algorithm, nowMs }) {
      const position = windowPosition(nowMs, windowMs);
      const [, current, previous] = await run(
        `${prefix}${client}:${position.index}`,
        `${prefix}${client}:${position.index - 1}`,
        limit,
        windowMs,
        position.elapsedMs,
        algorithm,
      );
      return decide(algorithm, limit, windowMs, { current, previous }, position);
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the configured URL';
  }
}
