// The operator's alert when the funding pool stays low after a refill (the reserve is spent
// or absent): a warning in the logs naming the address to pay, at most once per `everyMs`.
// Metrics carry the level (tokenproxy_funding_pool_outputs) for alerting rules.
import type { Queryable } from '../store/db/db.js';
import { availableFundingUpTo } from '../store/funding/funding-pool.js';

export interface FundingAlertDeps {
  readonly db: Queryable;
  readonly log: { warn(obj: object, msg: string): void };
  /** The funding key's address: where the operator pays. */
  readonly address: string;
  readonly lowWater: number;
  readonly everyMs: number;
  readonly now: () => number;
}

/** Returns the check to run after each refill; answers whether it warned. */
export function fundingAlert(deps: FundingAlertDeps): () => Promise<boolean> {
  let lastWarned = Number.NEGATIVE_INFINITY;
  return async () => {
    const available = await availableFundingUpTo(deps.db, deps.lowWater);
    if (available >= deps.lowWater) return false;
    const now = deps.now();
    if (now - lastWarned < deps.everyMs) return false;
    lastWarned = now;
    deps.log.warn(
      { available, lowWater: deps.lowWater, fundingAddress: deps.address },
      `funding pool low (${available} outputs, refill threshold ${deps.lowWater}): pay satoshis to ${deps.address}`,
    );
    return true;
  };
}
