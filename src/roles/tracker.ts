// The tracker role: keeps the funding pool (filled before any ticket is followed), follows
// every live ticket to its end (usecases/track/track-tickets.ts), and purges Idempotency-Key answers
// kept longer than idempotencyKeepMs.
import type { Parts } from '../compose.js';
import { addressesOf } from '../keys/operator-keys.js';
import { fundingAlert } from '../metrics/funding-alert.js';
import { purgeIdempotencyKeys } from '../store/access/idempotency-store.js';
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
  const purger = setInterval(() => void purgeOldIdempotencyKeys(parts), config.idempotencyPurgeMs);
  return {
    async stop() {
      await keeper.stop();
      clearInterval(purger);
      await tracker.stop();
    },
  };
}

async function purgeOldIdempotencyKeys(parts: Parts): Promise<void> {
  try {
    const before = new Date(parts.ctx.now().getTime() - parts.config.idempotencyKeepMs);
    await purgeIdempotencyKeys(parts.db, before);
  } catch (err) {
    parts.logger.error({ err }, 'purging old idempotency keys failed');
  }
}
