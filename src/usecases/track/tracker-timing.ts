// When the tracker looks again: the next poll, the backstop of a MINED ticket whose block it
// watches (docs/adr/0006), the backstop of a SUCCESS ticket waiting for a block
// (docs/adr/0008), and the back-off after failed looks; how many looks at
// once; and when a block is deep enough to be final.
import type { Ledger } from '../../ledger/port.js';
import type { LookTimes } from '../../store/tickets/ticket-writes.js';
import type { TrackerSettings } from '../context.js';

/**
 * Polls after which a MINED ticket is looked at on its own although its block is watched: the
 * guarantee for a ticket whose block row a race or a crash lost (docs/adr/0006, "Why the
 * backstop"). 40 polls: 80 s on the devnet, 20 minutes on ARC.
 */
export const BACKSTOP_POLLS = 40;

/**
 * Polls after which a SUCCESS ticket is looked at on its own although no block came: how soon a
 * rejection or an eviction between blocks that nobody pushed is found (docs/adr/0008). 10 polls:
 * 20 s on the devnet, 5 minutes on ARC.
 */
export const MEMPOOL_BACKSTOP_POLLS = 10;

/** Canaries a poll: the longest-waiting SUCCESS tickets, and the newest that waited a while. */
export const CANARIES_OLDEST = 1;
export const CANARIES_RECENT = 2;

const MAX_BACKOFF_MS = 60_000;

/** How long a sweep holds what it claimed (a ticket, a block) before another tracker may take it. */
const LEASE_MS = 30_000;

/** When a lease taken at `now` ends. */
export const leaseEnd = (now: Date): Date => new Date(now.getTime() + LEASE_MS);

/** Tickets, or blocks, one sweep claims at most. */
export const SWEEP_LIMIT = 50;

/** Status questions to the ledger at once. */
export const LOOKS_AT_ONCE = 8;

/** The next poll and the backstops, from `now`. */
export function lookTimes(tracker: TrackerSettings, now: Date): LookTimes {
  return {
    poll: new Date(now.getTime() + tracker.pollIntervalMs),
    backstop: new Date(now.getTime() + BACKSTOP_POLLS * tracker.pollIntervalMs),
    mempoolBackstop: new Date(now.getTime() + MEMPOOL_BACKSTOP_POLLS * tracker.pollIntervalMs),
  };
}

/** 1 s after the first failure in a row, doubling up to a minute. */
export function retryDelayMs(failuresInARow: number): number {
  return Math.min(1000 * 2 ** Math.min(failuresInARow, 10), MAX_BACKOFF_MS);
}

/** Runs `work` over `items`, at most `limit` at a time. */
export async function eachAtMost<T>(limit: number, items: readonly T[], work: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** The chain tip's height, or undefined when the ledger cannot say (nothing is final then). */
export async function tipHeightNow(ledger: Ledger): Promise<number | undefined> {
  try {
    return (await ledger.tip()).height;
  } catch {
    return undefined;
  }
}

/** Whether a block at `height` is final under a tip at `tipHeight` (never, with no tip known). */
export function isFinal(tracker: TrackerSettings, tipHeight: number | undefined, height: number): boolean {
  return tipHeight !== undefined && tipHeight - height + 1 >= tracker.finalConfirmations;
}
