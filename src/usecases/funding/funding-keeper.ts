// The funding keeper (the tracker role runs it): keeps the funding pool ahead of demand. It
// looks at the pool's level whenever this process's lease pool used outputs (an in-process
// signal, funding-signal.ts) and every `checkEveryMs` (for the api processes elsewhere: a look is
// one count of the pool's partial index), measures the rate outputs are used at
// (funding-demand.ts), and splits reserve outputs into the pool when the level is under the
// low-water mark that rate calls for, the split sized to the rate too. A transfer waiting for an
// output hears of the refill at once. Every `refillEveryMs` it also notices the payments made to
// the funding address (on the embedded devnet, which lists its outputs) and runs the low-pool
// alert. The first round runs before startFundingKeeper resolves (the pool is filled at first
// start).

import { availableFundingUpTo } from '../../store/funding/funding-pool.js';
import { createDemandMeter, type Demand, type DemandBounds, demandFor } from './funding-demand.js';
import { fundingSignalOf } from './funding-signal.js';
import { noticeFundingPayments, type OutputLister } from './notice-funding-payments.js';
import { type RefillDeps, refillFundingPool } from './pool-refill.js';

export interface FundingKeeperDeps extends RefillDeps {
  /** Where payments to the funding address are noticed before each refill (the devnet); null: nowhere. */
  readonly payments: OutputLister | null;
  /** Run after each slow round: the low-pool alert. */
  readonly afterRefill: () => Promise<unknown>;
}

export interface FundingKeeperSettings extends DemandBounds {
  /** How often the pool's level is looked at, ms (config fundingPoolCheckMs). */
  readonly checkEveryMs: number;
  /** How often payments are noticed and the alert runs, ms (config fundingRefillMs). */
  readonly refillEveryMs: number;
}

export interface FundingKeeper {
  /** The demand measured at the last look, and the mark and split it calls for. */
  demand(): Demand;
  stop(): Promise<void>;
}

/** Splits made one after another in one look at most, when one does not reach the mark. */
const MOST_SPLITS_A_LOOK = 4;

/** The settings from the configuration. */
export function fundingKeeperSettingsOf(config: {
  readonly fundingPoolLowWater: number;
  readonly fundingPoolLowWaterMax: number;
  readonly fundingSplitMinOutputs: number;
  readonly fundingSplitMaxOutputs: number;
  readonly fundingPoolCheckMs: number;
  readonly fundingRefillMs: number;
}): FundingKeeperSettings {
  return {
    lowWater: config.fundingPoolLowWater,
    lowWaterMax: config.fundingPoolLowWaterMax,
    splitMin: config.fundingSplitMinOutputs,
    splitMax: config.fundingSplitMaxOutputs,
    checkEveryMs: config.fundingPoolCheckMs,
    refillEveryMs: config.fundingRefillMs,
  };
}

/** Runs a first round, then looks and rounds as above until stopped; a failed one is logged. */
export async function startFundingKeeper(
  deps: FundingKeeperDeps,
  settings: FundingKeeperSettings,
): Promise<FundingKeeper> {
  const { payments } = deps;
  const signal = fundingSignalOf(deps.db);
  const meter = createDemandMeter();
  // Counted up to here: the level is exact below it, and above it the pool is far from low.
  const countUpTo = 4 * (settings.lowWaterMax + settings.splitMax);
  let demand = demandFor(0, settings);
  let added = 0;
  let stopped = false;

  const look = oneAtATime(async () => {
    for (let split = 0; split <= MOST_SPLITS_A_LOOK && !stopped; split++) {
      const level = await availableFundingUpTo(deps.db, countUpTo);
      const now = Date.now();
      meter.observe(now, level, added);
      added = 0;
      demand = demandFor(meter.perSecond(now), settings);
      if (level >= demand.lowWater || split === MOST_SPLITS_A_LOOK) return;
      const txid = await refillFundingPool(deps, demand.lowWater, demand.splitOutputs);
      if (txid === null) return; // the pool filled meanwhile, or the reserve is out (logged)
      added += demand.splitOutputs;
      signal.refilled();
    }
  });
  const safely = (what: Promise<unknown>) =>
    what.catch((err) => deps.log.error({ err }, 'funding pool refill failed'));
  const round = async () => {
    if (payments !== null) await noticeFundingPayments({ ...deps, ledger: payments });
    await look();
    await deps.afterRefill();
  };

  await safely(round());
  const rounds = setInterval(() => void safely(round()), settings.refillEveryMs);
  const looks = setInterval(() => void safely(look()), settings.checkEveryMs);
  const unlisten = signal.onUsed(() => void safely(look()));
  return {
    demand: () => demand,
    async stop() {
      stopped = true;
      unlisten();
      clearInterval(rounds);
      clearInterval(looks);
      // A look that fails now was logged where it was started; its error must not end the
      // stop of the role around it (the tracker role stops its tracker loop next).
      await look.running().catch(() => undefined);
    },
  };
}

/**
 * `work` run one at a time: a call while it runs asks for one more run after it (a use signalled
 * after a look counted the level must be looked at again) and is answered with the run under way.
 */
function oneAtATime(work: () => Promise<void>): { (): Promise<void>; running(): Promise<void> } {
  let current: Promise<void> | null = null;
  let again = false;
  const run = (): Promise<void> => {
    if (current !== null) {
      again = true;
      return current;
    }
    current = (async () => {
      try {
        do {
          again = false;
          await work();
        } while (again);
      } finally {
        current = null;
      }
    })();
    return current;
  };
  return Object.assign(run, { running: () => current ?? Promise.resolve() });
}
