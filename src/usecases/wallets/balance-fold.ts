// The balance folder: moves the balance changes the token_outputs triggers append into the
// kept balances (store/wallets/address-balances.ts), every `everyMs`, so a balance read sums the
// owner's row and a handful of pending changes. Every process that writes or reads balances
// runs one (the api and tracker roles); a fold takes a turn across instances and the others
// skip theirs. A read is right whether or not a fold has run: folds only keep it short.
import type { Logger } from 'pino';
import type { Db } from '../../store/db/db.js';
import { balanceChangesPending, foldBalanceChanges } from '../../store/wallets/address-balances.js';

/** How often the folder runs unless told otherwise. */
export const BALANCE_FOLD_EVERY_MS = 200;

export interface BalanceFolder {
  /** Runs one fold now (after the one under way, if any); resolves to the changes moved. */
  foldNow(): Promise<number>;
  stop(): Promise<void>;
}

export function startBalanceFolder(
  deps: { readonly db: Db; readonly log: Pick<Logger, 'error'> },
  everyMs = BALANCE_FOLD_EVERY_MS,
): BalanceFolder {
  let last: Promise<number> = Promise.resolve(0);
  let running = 0;
  // A fold only when something is pending: on PGlite a write (the fold) tells the balance cache
  // that balances may have moved, so an idle service does not write every tick.
  const fold = async () => ((await balanceChangesPending(deps.db)) ? foldBalanceChanges(deps.db) : 0);
  const foldNow = () => {
    running++;
    last = last
      .then(fold)
      .catch((err) => {
        deps.log.error({ err }, 'folding balance changes failed');
        return 0;
      })
      .finally(() => running--);
    return last;
  };
  // A tick while a fold is under way (a slow database) is skipped, not queued.
  const timer = setInterval(() => {
    if (running === 0) void foldNow();
  }, everyMs);
  timer.unref();
  return {
    foldNow,
    async stop() {
      clearInterval(timer);
      await last;
    },
  };
}
