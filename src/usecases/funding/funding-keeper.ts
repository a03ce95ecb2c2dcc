// The funding keeper (the tracker role runs it): keeps the funding pool filled. Each round
// notices the payments made to the funding address (on the embedded devnet, which lists its
// outputs), splits reserve outputs into the pool when fewer than `lowWater` are available, then
// runs the low-pool alert. The first round runs before startFundingKeeper resolves (the pool is
// filled at first start), then one every `refillEveryMs`.

import { noticeFundingPayments, type OutputLister } from './notice-funding-payments.js';
import { type RefillDeps, refillFundingPool } from './pool-refill.js';

export interface FundingKeeperDeps extends RefillDeps {
  /** Where payments to the funding address are noticed before each refill (the devnet); null: nowhere. */
  readonly payments: OutputLister | null;
  /** Run after each refill: the low-pool alert. */
  readonly afterRefill: () => Promise<unknown>;
}

export interface FundingKeeperSettings {
  /** Available funding outputs below which the pool is refilled (config fundingPoolLowWater). */
  readonly lowWater: number;
  /** How often a round runs (config fundingRefillMs). */
  readonly refillEveryMs: number;
}

/** Runs a first round, then one every `refillEveryMs` until stopped; a failed round is logged. */
export async function startFundingKeeper(
  deps: FundingKeeperDeps,
  settings: FundingKeeperSettings,
): Promise<{ stop(): Promise<void> }> {
  const { payments } = deps;
  const notice = async () => {
    if (payments !== null) await noticeFundingPayments({ ...deps, ledger: payments });
  };
  const round = () =>
    notice()
      .then(() => refillFundingPool(deps, settings.lowWater))
      .then(() => deps.afterRefill())
      .catch((err) => deps.log.error({ err }, 'funding pool refill failed'));
  await round();
  const timer = setInterval(() => void round(), settings.refillEveryMs);
  return {
    async stop() {
      clearInterval(timer);
    },
  };
}
