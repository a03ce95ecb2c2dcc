// The dispatcher of address webhooks: reads the change feed after its cursor, matches each
// record with the subscriptions watching its addresses, and writes one event per subscription,
// address and change, moving the cursor in the same transaction. The cursor's row is locked
// FOR UPDATE for that transaction, so any number of dispatchers (one per deliverer process)
// take turns and each change becomes one event: a second dispatcher waits, then reads the moved
// cursor. The transfers' write path is not touched: events come from the feed rows it writes.
import type { Logger } from '../../process/logger.js';
import type { Db } from '../../store/db/db.js';
import { feedBound } from '../../store/feed/feed-bound.js';
import {
  insertSubscriptionEvents,
  type NewSubscriptionEvent,
} from '../../store/subscriptions/subscription-events.js';
import {
  feedBatchEnd,
  holdSubscriptionStates,
  lockDispatchCursor,
  moveDispatchCursor,
  subscribedChanges,
} from '../../store/subscriptions/subscription-feed.js';
import { planAddressEvent, webhookIdOf } from './address-event.js';

export interface DispatchSettings {
  /** Feed records read per transaction (default 500). */
  readonly batch?: number;
  /**
   * How long an unconfirmed record waits for its ticket to leave BROADCASTING (the ledger's
   * acceptance) before its event is written anyway, ms (default 30 s).
   */
  readonly holdMs?: number;
}

export interface DispatchRound {
  /** Events written. */
  readonly events: number;
  /** The cursor moved to the end of a full batch: there may be more at once. */
  readonly more: boolean;
  /** Events written, by event status (metrics). */
  readonly byStatus: Readonly<Record<string, number>>;
}

/** One transaction: reads a batch after the cursor, writes its events, moves the cursor. */
export async function dispatchOnce(
  db: Db,
  now: Date,
  settings: DispatchSettings = {},
): Promise<DispatchRound> {
  const batch = settings.batch ?? 500;
  const holdUntil = new Date(now.getTime() - (settings.holdMs ?? 30_000));
  return db.transaction(async (tx) => {
    const cursor = await lockDispatchCursor(tx);
    // Read in a statement of its own, before the batch's: no record at or below it can appear
    // later, so the cursor never passes one (store/feed/feed-bound.ts).
    const bound = await feedBound(tx);
    const end = await feedBatchEnd(tx, cursor, batch, bound);
    if (end.last === null) return { events: 0, more: false, byStatus: {} };
    const changes = await subscribedChanges(tx, cursor, end.last);
    const enabled = await holdSubscriptionStates(tx, [...new Set(changes.map((c) => c.subscriptionId))]);
    const events: NewSubscriptionEvent[] = [];
    let upTo = end.last;
    for (const change of changes) {
      if (change.score > upTo) break;
      const plan = planAddressEvent(change, now, holdUntil);
      if (plan.kind === 'hold') {
        // Everything before this record is done; it and what follows wait for the next round.
        upTo = change.score - 1n;
        continue;
      }
      if (plan.kind === 'none' || !enabled.has(change.subscriptionId)) continue;
      events.push({
        webhookId: webhookIdOf(change.subscriptionId, change.txid, change.address, plan.status, change.score),
        subscriptionId: change.subscriptionId,
        type: plan.type,
        txid: change.txid,
        address: change.address,
        status: plan.status,
        score: change.score,
        payload: plan.payload,
        state: enabled.get(change.subscriptionId) ? 'pending' : 'skipped',
      });
    }
    const kept = events.filter((e) => e.score <= upTo);
    const written = await insertSubscriptionEvents(tx, kept, now);
    if (upTo > cursor) await moveDispatchCursor(tx, upTo);
    // The cursor's lock means each change is read once, so the unique key drops none of these:
    // what was kept is what was written (were it not, the round counts by status none of them).
    const byStatus: Record<string, number> = {};
    if (written === kept.length)
      for (const e of kept) byStatus[e.status ?? 'none'] = (byStatus[e.status ?? 'none'] ?? 0) + 1;
    return { events: written, more: upTo === end.last && end.count === batch, byStatus };
  });
}

export interface Dispatcher {
  /** Dispatches until the feed's visible end (or a held record); answers the events written. */
  runNow(): Promise<number>;
  start(): void;
  stop(): Promise<void>;
}

export function createDispatcher(options: {
  readonly db: Db;
  readonly log: Logger;
  readonly now: () => Date;
  readonly pollMs: number;
  readonly settings?: DispatchSettings;
  /** Told after each round (liveness) and of the events it wrote. */
  readonly onRound?: (events: number) => void;
  /** Told after each transaction of the events it wrote, by event status (metrics). */
  readonly onWritten?: (byStatus: Readonly<Record<string, number>>) => void;
}): Dispatcher {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<number> | null = null;
  let stopped = false;

  async function drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const round = await dispatchOnce(options.db, options.now(), options.settings);
      total += round.events;
      if (round.events > 0) options.onWritten?.(round.byStatus);
      if (!round.more || stopped) return total;
    }
  }

  function runNow(): Promise<number> {
    // One round at a time in this process; a caller during a round waits for it, then runs its own.
    const next = (running ?? Promise.resolve(0)).catch(() => 0).then(drain);
    running = next;
    return next;
  }

  function tick(): void {
    timer = null;
    runNow()
      .then((events) => options.onRound?.(events))
      .catch((err) => options.log.error({ err }, 'dispatching address webhooks failed'))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, options.pollMs);
      });
  }

  return {
    runNow,
    start() {
      if (timer === null && !stopped) timer = setTimeout(tick, 0);
    },
    async stop() {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
      await running?.catch(() => undefined);
    },
  };
}
