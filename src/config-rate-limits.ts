// The settings of rate limiting, spread into the one schema (config-schema.ts): on or off, the
// window and how it slides, the limits per key and per anonymous client, what a large answer
// costs, and what the limits do while their shared store (Redis) is out of reach.
import { Type } from 'typebox';

const Count = (def: number, description: string) => Type.Integer({ minimum: 1, default: def, description });

export const RATE_LIMIT_SETTINGS = {
  rateLimitEnabled: Type.Boolean({ default: true, description: 'Answer 429 above the rate limits.' }),
  rateLimitWindowMs: Type.Integer({
    minimum: 1000,
    default: 60_000,
    description: 'Rate limit window, ms.',
  }),
  rateLimitAlgorithm: Type.Enum(['fixed', 'sliding'], {
    default: 'sliding',
    description: 'Rate limit window: fixed, or sliding (the previous window weighed in).',
  }),
  rateLimitStoreDown: Type.Enum(['local', 'refuse'], {
    default: 'local',
    description:
      "What rate limits do while Redis (redisUrl) is out of reach after the start: 'local' counts in each process alone (a client may get its limit once per api process), 'refuse' answers 503 NOT_READY to what the limits cover. Said in the log and in tokenproxy_rate_limit_store_up.",
  }),
  rateLimitPerKey: Count(
    1200,
    'Requests per window per API key without a limit of its own (`tokenproxy keys limit`).',
  ),
  rateLimitAnonymous: Count(120, 'Requests per window per anonymous client IP.'),
  rateLimitAnswerBytes: Type.Integer({
    minimum: 0,
    default: 65_536,
    description:
      "An answer counts once more against its caller's rate limit per this many bytes it took beyond the first (0: answers count as one request whatever their size).",
  }),
};
