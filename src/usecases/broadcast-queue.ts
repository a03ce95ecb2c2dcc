// Broadcasting in batches: tickets' final transactions queue here, go to the ledger together
// (one broadcastMany: ARC's POST /v1/txs, or the devnet's one journal sync) and have the
// answers applied together (one database transaction, one score draw). Natural batching: while
// a batch is in flight, what arrives gathers; it leaves when the previous one has returned
// (after `windowMs`, if set), at most `maxBatch` at a time. Each caller gets its own outcome,
// once the ledger's answer is committed to the store.
import { LedgerUnavailableError } from '../ledger/port.js';
import { applyLedgerStatuses } from './apply-ledger-status.js';
import { type BroadcastOutcome, verdictOf } from './broadcast-ticket.js';
import type { ServiceContext } from './context.js';

export interface BroadcastItem {
  readonly ticketId: string;
  readonly txid: string;
  readonly rawTx: Uint8Array;
}

export interface BroadcastQueue {
  /** Queues the ticket's final transaction for the next broadcast batch; resolves with its outcome once the
   *  ledger's answer has been applied to the store and committed. Ledger trouble is an outcome ('unavailable'), not a rejection. */
  enqueue(item: BroadcastItem): Promise<BroadcastOutcome>;
  /** Flushes what is queued and stops. */
  close(): Promise<void>;
}

interface Waiting {
  readonly item: BroadcastItem;
  readonly resolve: (outcome: BroadcastOutcome) => void;
  readonly reject: (err: unknown) => void;
}

const DEFAULT_MAX_BATCH = 256;

export function createBroadcastQueue(
  ctx: ServiceContext,
  options: { maxBatch?: number; windowMs?: number } = {},
): BroadcastQueue {
  const maxBatch = Math.max(1, options.maxBatch ?? DEFAULT_MAX_BATCH);
  const windowMs = Math.max(0, options.windowMs ?? 0);
  const waiting: Waiting[] = [];
  let running: Promise<void> | null = null;
  let closed = false;

  const pause = () =>
    new Promise<void>((resolve) => (windowMs > 0 ? setTimeout(resolve, windowMs) : setImmediate(resolve)));

  /** Sends batches until nothing waits; only one runs at a time. */
  const drain = async () => {
    while (waiting.length > 0) {
      // Let what arrives in the same turn (or window) join the batch.
      await pause();
      const batch = waiting.splice(0, maxBatch);
      await sendBatch(ctx, batch);
    }
    running = null;
  };

  return {
    enqueue(item) {
      if (closed) {
        return Promise.resolve({
          kind: 'unavailable',
          reason: 'the service is stopping; the tracker will broadcast the ticket',
        });
      }
      return new Promise<BroadcastOutcome>((resolve, reject) => {
        waiting.push({ item, resolve, reject });
        running ??= drain();
      });
    },
    async close() {
      closed = true;
      while (running !== null) await running;
    },
  };
}

/** One broadcastMany, one transaction for all answers; every waiting caller settled. */
async function sendBatch(ctx: ServiceContext, batch: readonly Waiting[]): Promise<void> {
  try {
    let results: Awaited<ReturnType<ServiceContext['ledger']['broadcastMany']>>;
    try {
      results = await ctx.ledger.broadcastMany(batch.map((w) => w.item.rawTx));
    } catch (err) {
      if (!(err instanceof LedgerUnavailableError)) throw err;
      ctx.log.warn(
        { tickets: batch.length, err: err.message },
        'ledger unavailable; the tracker will broadcast again',
      );
      for (const w of batch) w.resolve({ kind: 'unavailable', reason: err.message });
      return;
    }
    const verdicts = batch.map((w, i) => verdictOf(w.item.txid, results[i]!));
    await applyLedgerStatuses(
      ctx,
      verdicts.flatMap((v) => (v.update === null ? [] : [v.update])),
    );
    for (const [i, w] of batch.entries()) w.resolve(verdicts[i]!.outcome);
  } catch (err) {
    for (const w of batch) w.reject(err);
  }
}
