// The context the tracker's use cases read in tests that apply ledger statuses to a store: the
// database, a fixed clock, the tracker's settings (a 30 s poll, final at 6 blocks) and a quiet log.
import type { Db } from '../../src/store/db/db.js';
import type { ServiceContext } from '../../src/usecases/context.js';

export const TRACKER_POLL_MS = 30_000;

export function trackerContext(db: Db, now: Date): ServiceContext {
  const quiet = { info() {}, warn() {}, error() {} };
  return {
    db,
    now: () => now,
    tracker: { pollIntervalMs: TRACKER_POLL_MS, finalConfirmations: 6, firstLookAfterMs: 5000 },
    log: quiet,
  } as unknown as ServiceContext;
}
