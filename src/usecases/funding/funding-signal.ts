// What this process's funding lease pool and its funding keeper tell each other, at once rather
// than at the keeper's next look: the pool used outputs of the store (it leased some, or found
// too few to lease), so the keeper looks at the level now; the keeper added outputs, so a
// transfer waiting for one tries again now. One signal per database handle: the two share the
// handle compose.ts opened, and several services in one process (tests) do not hear each other.
// Across processes nothing is signalled: the keeper's short look (fundingPoolCheckMs) and the
// waiting transfer's retries read the store instead.
import { EventEmitter } from 'node:events';
import type { Db } from '../../store/db/db.js';

export interface FundingSignal {
  /** The lease pool leased outputs, or found fewer than it wanted: the pool's level fell. */
  used(): void;
  /** Calls `listener` at each use; returns how to stop. */
  onUsed(listener: () => void): () => void;
  /** The keeper added outputs to the pool. */
  refilled(): void;
  /** Resolves true at the next refill, or false after `ms`, whichever comes first. */
  nextRefill(ms: number): Promise<boolean>;
}

const signals = new WeakMap<Db, FundingSignal>();

/** The signal of the lease pool and the keeper that share `db`. */
export function fundingSignalOf(db: Db): FundingSignal {
  let signal = signals.get(db);
  if (signal === undefined) {
    signal = createFundingSignal();
    signals.set(db, signal);
  }
  return signal;
}

function createFundingSignal(): FundingSignal {
  const events = new EventEmitter();
  events.setMaxListeners(0); // every waiting transfer listens for the next refill
  return {
    used: () => void events.emit('used'),
    onUsed(listener) {
      events.on('used', listener);
      return () => void events.off('used', listener);
    },
    refilled: () => void events.emit('refilled'),
    nextRefill(ms) {
      return new Promise<boolean>((resolve) => {
        const done = (refilled: boolean) => {
          clearTimeout(timer);
          events.off('refilled', onRefill);
          resolve(refilled);
        };
        const onRefill = () => done(true);
        const timer = setTimeout(() => done(false), Math.max(0, ms));
        events.on('refilled', onRefill);
      });
    },
  };
}
