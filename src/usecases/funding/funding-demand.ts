// The funding pool's demand as the keeper measures it: outputs used per second, from the
// pool's level at each look (the level before, plus what the keeper added since, minus the
// level now), and what the keeper derives from it within the operator's bounds: the low-water
// mark (enough for LEAD_SECONDS of demand: a refill's time with room to spare) and the size of a
// split (SPLIT_SECONDS of demand, so that refills stay rare at any rate).
//
// The rate is the larger of a short and a long window's: a step up in demand shows within a
// look or two, a lull lowers the mark only after the long window. Erring high costs outputs
// made a little early; erring low costs transfers refused.

/** Seconds of demand the low-water mark covers. */
export const LEAD_SECONDS = 10;
/** Seconds of demand one split makes. */
export const SPLIT_SECONDS = 60;
const SHORT_MS = 1_000;
const LONG_MS = 15_000;
/** A window shorter than this (just after the first look) is not trusted alone. */
const LEAST_SPAN_MS = 200;

export interface DemandBounds {
  /** Least and most low-water mark (config fundingPoolLowWater, fundingPoolLowWaterMax). */
  readonly lowWater: number;
  readonly lowWaterMax: number;
  /** Least and most outputs one split makes (config fundingSplitMinOutputs, fundingSplitMaxOutputs). */
  readonly splitMin: number;
  readonly splitMax: number;
}

export interface Demand {
  /** Outputs used per second. */
  readonly perSecond: number;
  readonly lowWater: number;
  readonly splitOutputs: number;
}

const clamp = (value: number, least: number, most: number) => Math.min(most, Math.max(least, value));

/** The mark and the split for `perSecond`, within `bounds`. */
export function demandFor(perSecond: number, bounds: DemandBounds): Demand {
  return {
    perSecond,
    lowWater: clamp(Math.ceil(perSecond * LEAD_SECONDS), bounds.lowWater, bounds.lowWaterMax),
    splitOutputs: clamp(Math.ceil(perSecond * SPLIT_SECONDS), bounds.splitMin, bounds.splitMax),
  };
}

export interface DemandMeter {
  /** A look at the pool at `atMs`: `level` available, `added` by refills since the last look. */
  observe(atMs: number, level: number, added: number): void;
  /** Outputs used per second at `atMs`. */
  perSecond(atMs: number): number;
}

export function createDemandMeter(): DemandMeter {
  /** Outputs used between the look before and the look at `at`. */
  const uses: { at: number; used: number }[] = [];
  let last: { at: number; level: number } | null = null;
  let since = Number.NaN; // the first look

  const windowRate = (atMs: number, windowMs: number): number => {
    const from = Math.max(atMs - windowMs, since);
    const span = atMs - from;
    if (!(span >= LEAST_SPAN_MS)) return 0;
    let used = 0;
    for (const u of uses) if (u.at > from) used += u.used;
    return (used * 1000) / span;
  };

  return {
    observe(atMs, level, added) {
      if (last === null) since = atMs;
      else uses.push({ at: atMs, used: Math.max(0, last.level + added - level) });
      last = { at: atMs, level };
      while (uses.length > 0 && uses[0]!.at <= atMs - LONG_MS) uses.shift();
    },
    perSecond(atMs) {
      return Math.max(windowRate(atMs, SHORT_MS), windowRate(atMs, LONG_MS));
    },
  };
}
