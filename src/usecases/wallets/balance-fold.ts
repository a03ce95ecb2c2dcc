// The balance folder: every `everyMs`, folds the kept balance rows of database connections that
// have ended into backend 0 (store/wallets/address-balances.ts), so an owner's balance is read
// from a row per live connection that changed it, and one more, however often the pools open
// and close connections. Every process that writes or reads balances runs one (the api and
// tracker roles); a fold takes a turn across instances and the others skip theirs. A read is
// right whether or not a fold has run: folds only keep it short.
import type { Logger } from 'pino';
import type { Db } from '../../store/db/db.js';
import { balancePartsEnded, foldEndedBalanceParts } from '../../store/wallets/address-balances.js';

/** How often the folder runs unless told otherwise. */
export const BALANCE_FOLD_EVERY_MS = 5_000;

export interface BalanceFolder {
  /** Runs one fold now (after the one under way, if any); resolves to the balance rows folded. */
  foldNow(): Promise<number>;
  stop(): Promise<void>;
}

export function startBalanceFolder(
  deps: { readonly db: Db; readonly log: Pick<Logger, 'error'> },
  everyMs = BALANCE_FOLD_EVERY_MS,
): BalanceFolder {
  let last: Promise<number> = Promise.resolve(0);
  let running = 0;
  // A fold only when a connection with rows has ended: on PGlite (one connection, which never
  // ends) a write would tell the balance cache that balances may have moved.
  const fold = async () => ((await balancePartsEnded(deps.db)) ? foldEndedBalanceParts(deps.db) : 0);
  const foldNow = () => {
    running++;
    last = last
      .then(fold)
      .catch((err) => {
        deps.log.error({ err }, 'folding the balance rows of ended connections failed');
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
