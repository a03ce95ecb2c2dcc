// Broadcasting in batches: tickets' final transactions queue here, go to the ledger together
// (one broadcastMany: ARC's POST /v1/txs, or the devnet's one journal sync) and have the
// answers applied together (one database transaction, one score draw). Natural batching
// (process/batcher.ts): while a batch is in flight, what arrives gathers; it leaves when the
// previous one has returned, at most `maxBatch` at a time; a lone ticket waits `windowMs`, or the
// rest of its turn. Each caller gets its own outcome, once the ledger's answer is committed.
import { LedgerUnavailableError } from '../../ledger/port.js';
import { createBatcher } from '../../process/batcher.js';
import type { ServiceContext } from '../context.js';
import { applyLedgerStatuses, type LedgerUpdate } from '../track/apply-ledger-status.js';
import type { BroadcastItem, BroadcastOutcome, BroadcastQueue } from './broadcast-port.js';
import { verdictOf } from './broadcast-ticket.js';

export type { BroadcastItem, BroadcastQueue } from './broadcast-port.js';

const DEFAULT_MAX_BATCH = 256;

export function createBroadcastQueue(
  ctx: ServiceContext,
  options: {
    maxBatch?: number;
    windowMs?: number;
    /** Where the answers are written (the writer's link, ADR 0007); default: here, in one transaction. */
    apply?: (updates: readonly LedgerUpdate[]) => Promise<void>;
  } = {},
): BroadcastQueue {
  const apply = options.apply ?? ((updates) => applyLedgerStatuses(ctx, updates));
  const batches = createBatcher<BroadcastItem, BroadcastOutcome>((items) => sendBatch(ctx, items, apply), {
    maxBatch: Math.max(1, options.maxBatch ?? DEFAULT_MAX_BATCH),
    windowMs: Math.max(0, options.windowMs ?? 0),
    sameTurn: true,
  });
  let closed = false;
  return {
    enqueue(item) {
      if (closed) {
        return Promise.resolve({
          kind: 'unavailable',
          reason: 'the service is stopping; the tracker will broadcast the ticket',
        });
      }
      return batches.add(item);
    },
    async close() {
      closed = true;
      await batches.drain();
    },
  };
}

/** One broadcastMany, one transaction for all answers; an outcome per item, in order. */
async function sendBatch(
  ctx: ServiceContext,
  items: readonly BroadcastItem[],
  apply: (updates: readonly LedgerUpdate[]) => Promise<void>,
): Promise<BroadcastOutcome[]> {
  let results: Awaited<ReturnType<ServiceContext['ledger']['broadcastMany']>>;
  try {
    results = await ctx.ledger.broadcastMany(items.map((i) => i.rawTx));
  } catch (err) {
    if (!(err instanceof LedgerUnavailableError)) throw err;
    ctx.log.warn(
      { tickets: items.length, err: err.message },
      'ledger unavailable; the tracker will broadcast again',
    );
    return items.map(() => ({ kind: 'unavailable', reason: err.message }));
  }
  const verdicts = items.map((item, i) => verdictOf(item.txid, results[i]!));
  await apply(verdicts.flatMap((v) => (v.update === null ? [] : [v.update])));
  return verdicts.map((v) => v.outcome);
}
