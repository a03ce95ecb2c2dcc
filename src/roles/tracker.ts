// The tracker role: keeps the funding pool (filled before any ticket is followed), follows
// every live ticket to its end (usecases/track/track-tickets.ts), and every idempotencyPurgeMs
// purges Idempotency-Key answers kept longer than idempotencyKeepMs and folds the kept counts of
// database connections that have ended (store/db/kept-counts.ts).
import type { Parts } from '../compose.js';
import { addressesOf } from '../keys/operator-keys.js';
import { fundingAlert } from '../metrics/funding-alert.js';
import { purgeIdempotencyKeys } from '../store/access/idempotency-store.js';
import { EVENT_COUNTS } from '../store/callbacks/event-counts.js';
import { foldEndedConnections, type KeptCounts } from '../store/db/kept-counts.js';
import { TICKET_COUNTS } from '../store/tickets/ticket-counts.js';
import { fundingKeeperSettingsOf, startFundingKeeper } from '../usecases/funding/funding-keeper.js';
import { type RoundListener, startTracker } from '../usecases/track/track-tickets.js';

/** `onRound`: told after each of the tracker's sweeps (liveness and the tracker-round series). */
export async function startTrackerRole(
  parts: Parts,
  onRound?: RoundListener,
): Promise<{ stop(): Promise<void> }> {
  const { config, ctx, db, logger } = parts;
  logger.info({ step: 'funding' }, 'checking the funding pool (filled at first start)');
  const keeper = await startFundingKeeper(
    {
      db,
      ledger: parts.ledger,
      fundingKey: parts.keys.funding,
      feeRate: ctx.feeRate,
      now: ctx.now,
      log: logger,
      payments: parts.devnet,
      afterRefill: fundingAlert({
        db,
        log: logger,
        address: addressesOf(parts.keys).fundingAddress,
        lowWater: config.fundingPoolLowWater,
        everyMs: config.fundingAlertMs,
        now: Date.now,
      }),
    },
    fundingKeeperSettingsOf(config),
  );
  const tracker = startTracker(ctx, undefined, onRound);
  const purger = setInterval(() => void keepHouse(parts), config.idempotencyPurgeMs);
  return {
    async stop() {
      clearInterval(purger);
      // The tracker's loop stops whatever the keeper's stop does: left running, it would keep
      // the process alive after the service's stop.
      try {
        await keeper.stop();
      } finally {
        await tracker.stop();
      }
    },
  };
}

async function keepHouse(parts: Parts): Promise<void> {
  try {
    const before = new Date(parts.ctx.now().getTime() - parts.config.idempotencyKeepMs);
    await purgeIdempotencyKeys(parts.db, before);
  } catch (err) {
    parts.logger.error({ err }, 'purging old idempotency keys failed');
  }
  for (const kept of [TICKET_COUNTS, EVENT_COUNTS] as KeptCounts<string>[]) {
    try {
      await foldEndedConnections(parts.db, kept);
    } catch (err) {
      parts.logger.error({ err, table: kept.table }, 'folding the kept counts of ended connections failed');
    }
  }
}
