// The deliverer of address webhooks (issue 31, part 1): leases due events of enabled
// subscriptions (FOR UPDATE SKIP LOCKED: any number of deliverers, each event sent by one at a
// time) and POSTs each, signed with its subscription's secret (Standard Webhooks), through the
// same sender, address guard, receiver slots, receiver room and retry schedule as ticket
// callbacks: a slow or dead receiver holds at most its room of this deliverer's hand, never the
// other receivers' events. Just before a send the event's subscription is read again (in one
// statement for the sends starting together): an event whose subscription was disabled or
// deleted while it waited in hand is not sent, and one whose URL changed goes back to be leased
// for the new one. A 2xx is
// delivered; 410 Gone disables the subscription; anything else is tried again on the retry
// schedule for 24 h. A subscription whose deliveries keep failing for `disableAfterMs` is
// disabled with the reason (store/subscriptions/subscription-events.ts).
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { Logger } from '../process/logger.js';
import type { Db } from '../store/db/db.js';
import {
  type AttemptRecord,
  type AttemptWrite,
  type LeasedSubscriptionEvent,
  type LeaseStanding,
  leaseSubscriptionEvents,
  recordSubscriptionAttempts,
  releaseSubscriptionEvent,
  type SubscriptionOutcome,
  skipLeasedEvent,
  standingOfLeased,
} from '../store/subscriptions/subscription-events.js';
import type { CallbackAllowList, Resolver } from './address-guard.js';
import { ReceiverRoom } from './receiver-room.js';
import { ReceiverSlots } from './receiver-slots.js';
import { attemptVerdict } from './retry-schedule.js';
import { RoomLease } from './room-lease.js';
import { webhookHeaders } from './signer.js';
import { SigningKeys } from './signing-keys.js';
import { createWebhookSender, type SendResult, type WebhookSender } from './webhook-sender.js';

export interface SubscriptionDelivererOptions {
  readonly db: Db;
  readonly masterKey: Uint8Array;
  readonly allow: CallbackAllowList;
  readonly log: Logger;
  readonly resolve?: Resolver;
  readonly clock?: () => Date;
  readonly random?: () => number;
  readonly owner?: string;
  /** Deliveries in flight at once (default 32). */
  readonly concurrency?: number;
  /** Deliveries in flight to one receiver origin (default 8). */
  readonly perOriginLimit?: number;
  /** Deadline of one attempt (default 10 s). */
  readonly timeoutMs?: number;
  /** Sleep between looks when nothing is due (default 250 ms). */
  readonly pollIntervalMs?: number;
  /** A subscription failing this long is disabled (default 3 days). */
  readonly disableAfterMs?: number;
  readonly sender?: WebhookSender;
  /** Told of each attempt recorded: its outcome and how long the send took, ms (metrics). */
  readonly onAttempt?: (outcome: SubscriptionOutcome['kind'], latencyMs: number) => void;
  /** Told of each subscription this deliverer disabled, and why (metrics). */
  readonly onDisabled?: (reason: 'gone' | 'failing') => void;
  readonly onRound?: () => void;
}

export interface SubscriptionDeliverer {
  /** Delivers everything due at the clock's now; resolves when nothing more is due. */
  runDueNow(): Promise<number>;
  start(): void;
  stop(): Promise<void>;
}

const LEASE_MARGIN_MS = 5_000;
const THREE_DAYS_MS = 3 * 24 * 3_600_000;

export function createSubscriptionDeliverer(options: SubscriptionDelivererOptions): SubscriptionDeliverer {
  const { db, log } = options;
  const clock = options.clock ?? (() => new Date());
  const random = options.random ?? Math.random;
  const owner = options.owner ?? `subscriptions-${randomUUID()}`;
  const concurrency = options.concurrency ?? 32;
  const perOriginLimit = options.perOriginLimit ?? 8;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const leaseMs = 6 * timeoutMs + 2 * LEASE_MARGIN_MS;
  const pollIntervalMs = options.pollIntervalMs ?? 250;
  const disableAfterMs = options.disableAfterMs ?? THREE_DAYS_MS;
  /** Leased by one statement at least (but the last); four batches are held at most. */
  const batch = concurrency;
  const capacity = 4 * batch;
  const sender =
    options.sender ??
    createWebhookSender({
      allow: options.allow,
      timeoutMs,
      connectionsPerOrigin: perOriginLimit,
      ...(options.resolve !== undefined && { resolve: options.resolve }),
    });
  const stopping = new AbortController();
  setMaxListeners(0, stopping.signal);
  const keys = new SigningKeys(options.masterKey);
  let settled = 0;
  const slots = new ReceiverSlots<LeasedSubscriptionEvent>(concurrency, perOriginLimit, (event) =>
    deliver(event).catch((err) =>
      log.error({ err, webhookId: event.webhookId }, 'address webhook delivery failed'),
    ),
  );
  const room = new ReceiverRoom(perOriginLimit, capacity);
  const leasing = new RoomLease(
    room,
    slots,
    { owner, leaseMs, perOrigin: perOriginLimit, quietMs: pollIntervalMs, clock },
    (req) => leaseSubscriptionEvents(db, req),
  );
  const gatherMs = db.dialect === 'pglite' ? 5 : 2;
  const standing = gathered<string, LeaseStanding | undefined>(async (ids) => {
    const found = await standingOfLeased(db, owner, ids);
    return ids.map((id) => found.get(id));
  }, 0);
  let background: Promise<void> | null = null;
  const writer = gathered<AttemptWrite, void>(async (writes) => {
    const written = await db.transaction((tx) =>
      recordSubscriptionAttempts(tx, owner, writes, disableAfterMs),
    );
    for (const w of writes) {
      if (!written.recorded.has(w.eventId)) continue;
      settled++;
      options.onAttempt?.(w.outcome.kind, w.attempt.latencyMs);
    }
    for (const subscriptionId of written.disabled) {
      // A 410 in this batch disables at once (store: failing()); otherwise the failures' run did.
      const gone = writes.some((w) => w.subscriptionId === subscriptionId && w.outcome.kind === 'gone');
      const reason = gone ? 'gone' : 'failing';
      options.onDisabled?.(reason);
      log.warn(
        { subscriptionId, reason },
        gone
          ? 'an address subscription was disabled: its receiver answered 410 Gone'
          : 'an address subscription was disabled: its deliveries keep failing',
      );
    }
    return writes.map(() => undefined);
  }, gatherMs);

  async function deliver(event: LeasedSubscriptionEvent): Promise<void> {
    const at = clock();
    if (stopping.signal.aborted || event.leaseUntil.getTime() - at.getTime() < timeoutMs + LEASE_MARGIN_MS) {
      await releaseSubscriptionEvent(db, event.id, owner);
      return;
    }
    const now = await standing.ask(event.id);
    // Deleted, ended elsewhere, or its lease taken over: not this deliverer's to send or record.
    if (now === undefined) return;
    if (!now.enabled) return skipLeasedEvent(db, event.id, owner);
    if (now.url !== event.url) return releaseSubscriptionEvent(db, event.id, owner);
    const body = JSON.stringify(event.payload);
    const key = keys.keyOf(now.secretEnc);
    let result: Exclude<SendResult, { kind: 'aborted' }>;
    if (key.kind === 'unreadable' || key.key === null) {
      result = { kind: 'refused', reason: 'not sent: the signing secret cannot be opened', latencyMs: 0 };
    } else {
      const headers = webhookHeaders({ webhookId: event.webhookId, at, body }, key.key);
      const sent = await sender.send({ url: now.url, headers, body, signal: stopping.signal });
      if (sent.kind === 'aborted') {
        await releaseSubscriptionEvent(db, event.id, owner);
        return;
      }
      result = sent;
      room.answered(event.origin, result.kind === 'answered' ? result.latencyMs : timeoutMs);
    }
    const outcome = outcomeOf(event, result, at);
    const attempt = attemptRecord(result, at);
    await writer.ask({ eventId: event.id, subscriptionId: event.subscriptionId, attempt, outcome });
  }

  function outcomeOf(
    event: LeasedSubscriptionEvent,
    result: Exclude<SendResult, { kind: 'aborted' }>,
    at: Date,
  ): SubscriptionOutcome {
    const answer = result.kind === 'answered' ? result : undefined;
    return attemptVerdict(
      { answer, attemptsBefore: event.attempts, firstAttemptAt: event.firstAttemptAt, at },
      random,
    );
  }

  /** Leases into the free room; the number leased and asked for. */
  async function fill(): Promise<{ leased: number; asked: number }> {
    const asked = capacity - slots.held;
    if (asked <= 0 || stopping.signal.aborted) return { leased: 0, asked };
    return { leased: await leasing.fill(asked), asked };
  }

  /**
   * Leases when a whole batch fits in the hand (so one statement takes many events, not one
   * per finished send), and again at once when the last lease came back full. Without
   * `forever`, returns once nothing is in hand and a lease found nothing more.
   */
  async function pump(forever: boolean): Promise<void> {
    let lastLeased = -1;
    while (!stopping.signal.aborted) {
      const version = slots.version;
      if (capacity - slots.held >= batch) {
        try {
          const { leased, asked } = await fill();
          lastLeased = leased;
          options.onRound?.();
          if (leased === asked && leased > 0) continue;
        } catch (err) {
          log.error({ err }, 'leasing address webhooks failed');
          if (!forever) throw err;
        }
      }
      if (!forever && slots.held === 0) {
        if (lastLeased === 0) return;
        lastLeased = -1;
        continue;
      }
      await slots.changed(version, forever ? pollIntervalMs : null, stopping.signal);
    }
  }

  return {
    async runDueNow() {
      const before = settled;
      await pump(false);
      await slots.idle();
      return settled - before;
    },
    start() {
      if (background !== null) return;
      background = pump(true).catch((err) =>
        log.error({ err }, 'the address webhook deliverer stopped on an error'),
      );
    },
    async stop() {
      stopping.abort();
      await background;
      for (const event of slots.takeWaiting())
        await releaseSubscriptionEvent(db, event.id, owner).catch(() => undefined);
      await slots.idle();
      if (options.sender === undefined) await sender.close();
    },
  };
}

/**
 * Gathers questions into one call (a few statements for all of them, not one or three each): the
 * questions asked while a call runs go together in the next, and a question asked while none
 * runs waits `gatherMs` for company (0: only for the questions of the same turn of the event
 * loop). A caller waits for its batch; one call runs at a time.
 */
function gathered<Q, A>(answer: (questions: Q[]) => Promise<A[]>, gatherMs: number) {
  let waiting: { question: Q; done: (a: A) => void; failed: (err: unknown) => void }[] = [];
  let scheduled = false;
  let busy = false;
  const go = () => {
    scheduled = false;
    busy = true;
    const batch = waiting;
    waiting = [];
    answer(batch.map((b) => b.question))
      .then(
        (answers) => {
          for (const [i, b] of batch.entries()) b.done(answers[i] as A);
        },
        (err: unknown) => {
          for (const b of batch) b.failed(err);
        },
      )
      .finally(() => {
        busy = false;
        if (waiting.length > 0) schedule(0);
      });
  };
  const schedule = (after: number) => {
    if (scheduled || busy) return;
    scheduled = true;
    if (after === 0) setImmediate(go);
    else setTimeout(go, after);
  };
  return {
    ask(question: Q): Promise<A> {
      return new Promise<A>((done, failed) => {
        waiting.push({ question, done, failed });
        schedule(gatherMs);
      });
    },
  };
}

function attemptRecord(result: Exclude<SendResult, { kind: 'aborted' }>, at: Date): AttemptRecord {
  if (result.kind === 'answered') {
    const ok = result.status >= 200 && result.status < 300;
    const error = ok ? null : `HTTP ${result.status}${result.excerpt === '' ? '' : `: ${result.excerpt}`}`;
    return { at, statusCode: result.status, latencyMs: Math.round(result.latencyMs), error };
  }
  const error = result.kind === 'refused' ? result.reason : result.error;
  return { at, statusCode: null, latencyMs: Math.round(result.latencyMs), error };
}
