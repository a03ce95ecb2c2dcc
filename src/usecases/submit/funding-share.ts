// One API key's share of the funding pool (issue 29: about 250 self-transfers from one submit key
// drained the 470-output pool in 5 s, and every wallet got 503 FUNDING_EXHAUSTED until the
// keeper refilled). Each api process counts the funding outputs each key took over the last
// WINDOW_MS. While the pool is healthy nobody is bound. Once the store's available outputs fall
// below the low-water mark (the keeper is refilling), a key that took at least FLOOR outputs and
// at least `sharePercent` of all this process handed out in the window is refused with 429
// FUNDING_SHARE_EXCEEDED, for that key only: the outputs left serve the others until the refill.
// Per process: with N api processes a key may take N shares (docs/operations.md).
import { DomainError } from '../../domain/domain-error.js';
import type { Queryable } from '../../store/db/db.js';
import { availableFundingUpTo } from '../../store/funding/funding-pool.js';

/** The window a key's takes are counted over, ms. */
export const WINDOW_MS = 10_000;
/** Takes in the window any key may have whatever the others do. */
export const FLOOR = 8;
/** How long the pool's level read from the store is reused, ms. */
const LEVEL_FRESH_MS = 500;

export interface FundingShare {
  /** Throws FUNDING_SHARE_EXCEEDED when `keyId` is over its share of a low pool (null: never). */
  admit(keyId: string | null): Promise<void>;
  /** Counts an output `keyId` took (its transfer was cosigned with it); null: not counted. */
  took(keyId: string | null): void;
}

export interface FundingShareSettings {
  /** Share of the window's takes above which a key is refused while the pool is low, % (100: never). */
  readonly sharePercent: number;
  /** Available outputs below which the pool counts as low (the keeper's least low-water mark). */
  readonly lowWater: number;
}

export function createFundingShare(deps: {
  readonly db: Queryable;
  readonly settings: FundingShareSettings;
  /** Clock, ms (default Date.now). */
  readonly nowMs?: () => number;
}): FundingShare {
  const { settings } = deps;
  const nowMs = deps.nowMs ?? Date.now;
  /** Times of takes per key, oldest first; keys with none in the window are dropped. */
  const takes = new Map<string, number[]>();
  let total = 0;
  let level: { readonly available: number; readonly at: number } | null = null;

  const prune = (now: number) => {
    for (const [key, times] of takes) {
      let gone = 0;
      while (gone < times.length && times[gone]! <= now - WINDOW_MS) gone++;
      if (gone > 0) {
        times.splice(0, gone);
        total -= gone;
      }
      if (times.length === 0) takes.delete(key);
    }
  };

  const poolIsLow = async (now: number): Promise<boolean> => {
    if (level === null || now - level.at > LEVEL_FRESH_MS)
      level = { available: await availableFundingUpTo(deps.db, settings.lowWater), at: now };
    return level.available < settings.lowWater;
  };

  return {
    async admit(keyId) {
      // No key: the operator's own transfers (mint, burn) and the sandbox's shared public token,
      // which the rate limiter counts per client address: neither bound nor counted here.
      if (settings.sharePercent >= 100 || keyId === null) return;
      const now = nowMs();
      prune(now);
      const mine = takes.get(keyId)?.length ?? 0;
      if (mine < FLOOR || mine * 100 < settings.sharePercent * total) return;
      if (!(await poolIsLow(now))) return;
      throw new DomainError(
        'FUNDING_SHARE_EXCEEDED',
        `this API key took ${mine} of the ${total} funding outputs handed out in the last ${WINDOW_MS / 1000} s while the pool is low; retry after the refill`,
      );
    },
    took(keyId) {
      if (keyId === null) return;
      const key = keyId;
      const times = takes.get(key);
      if (times === undefined) takes.set(key, [nowMs()]);
      else times.push(nowMs());
      total++;
    },
  };
}
