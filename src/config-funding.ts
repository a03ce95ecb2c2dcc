// The settings of the funding pool (docs/operations.md, "Funding the pool"), spread into the
// one schema (config-schema.ts): its low-water marks, how the tracker splits and refills it
// from the reserve, when it warns, and the leases each process takes on its outputs.
import { Type } from 'typebox';

const Count = (def: number, description: string) => Type.Integer({ minimum: 1, default: def, description });

export const FUNDING_SETTINGS = {
  fundingPoolLowWater: Count(
    100,
    'Least low-water mark of the funding pool: the tracker refills the pool from the reserve below the mark, which rises with the demand it measures (10 s of it), and warns below this one when it cannot refill.',
  ),
  fundingPoolLowWaterMax: Count(
    5000,
    'Most low-water mark of the funding pool, whatever the demand measured.',
  ),
  fundingSplitMinOutputs: Count(
    470,
    'Least funding outputs one refill (a split of a reserve output) makes; a split makes a minute of the demand measured.',
  ),
  fundingSplitMaxOutputs: Count(5000, 'Most funding outputs one refill makes, whatever the demand measured.'),
  fundingPoolCheckMs: Type.Integer({
    minimum: 50,
    default: 500,
    description:
      "How often the tracker looks at the funding pool's level, ms (in its own process it also looks whenever transfers lease outputs).",
  }),
  fundingKeySharePercent: Type.Integer({
    minimum: 1,
    maximum: 100,
    default: 50,
    description:
      'While the funding pool is below fundingPoolLowWater, an API key that took at least this share of the funding outputs an api process handed out in the last 10 s (and at least 8) is refused 429 FUNDING_SHARE_EXCEEDED, so one key cannot starve the others; 100: never.',
  }),
  fundingRefillWaitMs: Type.Integer({
    minimum: 0,
    default: 3000,
    description:
      'How long a transfer that finds the funding pool dry waits for a refill before it is refused (503 FUNDING_EXHAUSTED), ms.',
  }),
  fundingRefillMs: Type.Integer({
    minimum: 100,
    default: 5000,
    description:
      'How often the tracker notices payments to the funding address and checks the low-pool alert, ms; also the Retry-After of a 503 (in seconds, rounded up).',
  }),
  fundingAlertMs: Type.Integer({
    minimum: 1000,
    default: 300_000,
    description: 'Least time between two "funding pool low" warnings in the log, ms.',
  }),
  fundingLeaseMs: Type.Integer({
    minimum: 1000,
    default: 60_000,
    description:
      "How long a process's lease on funding outputs lasts unless renewed, ms (longer than fundingLeaseKeepMs).",
  }),
  fundingLeaseKeepMs: Type.Integer({
    minimum: 100,
    default: 2000,
    description: 'How often a process renews its funding leases and fits its share to demand, ms.',
  }),
  fundingLeaseMinOutputs: Count(4, 'Fewest funding outputs a process keeps leased once transfers come.'),
  fundingLeaseMaxOutputs: Count(512, 'Most funding outputs a process keeps leased.'),
};
