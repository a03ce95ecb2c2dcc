// The deliverer role: leases due events from the outbox in batches and POSTs each, signed, to
// its ticket's callback URL. A 2xx is delivered; 410 Gone stops the ticket's callbacks;
// anything else is tried again on the retry schedule for 24 h. At most `concurrency`
// deliveries are in flight, at most `perOriginLimit` to one receiver. One lease statement takes
// up to `leaseBatch` events; their outcomes are written in one statement per flush
// (outbox-writer.ts) while the next events are already being sent. How many events of one
// receiver a deliverer holds follows how fast that receiver answers (receiver-room.ts): a
// slow or dead receiver gets no more than `perOriginLimit` in hand and holds up no one else.
// Time and randomness are injected: tests move the clock and call runDueNow().
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { Logger } from '../process/logger.js';
import {
  type AttemptOutcome,
  analyzeOutbox,
  type LeasedEvent,
  leaseDueEvents,
  releaseEventLeases,
} from '../store/callbacks/callback-outbox.js';
import type { Db } from '../store/db/db.js';
import type { CallbackAllowList, Resolver } from './address-guard.js';
import { eventBody } from './event-body.js';
import { outboxWriter } from './outbox-writer.js';
import { ReceiverRoom } from './receiver-room.js';
import { ReceiverSlots } from './receiver-slots.js';
import { attemptVerdict } from './retry-schedule.js';
import { RoomLease } from './room-lease.js';
import { webhookHeaders } from './signer.js';
import { SigningKeys } from './signing-keys.js';
import { createWebhookSender, type SendResult, type WebhookSender } from './webhook-sender.js';

export interface DelivererOptions {
  readonly db: Db;
  readonly masterKey: Uint8Array;
  readonly allow: CallbackAllowList;
  readonly log: Logger;
  readonly resolve?: Resolver;
  readonly clock?: () => Date;
  /** In [0, 1), for the retry jitter. */
  readonly random?: () => number;
  /** Name of this deliverer in leases (default: a random one). */
  readonly owner?: string;
  /**
   * The owner is the same after a restart (its instance's): start() first gives back the events
   * an earlier run of it left leased (killed mid-delivery), so they are sent again at once
   * instead of once those leases run out.
   */
  readonly releaseOwnLeasesAtStart?: boolean;
  /** Deliveries in flight at once (default 32). */
  readonly concurrency?: number;
  /** Deliveries in flight to one receiver origin (default 8). */
  readonly perOriginLimit?: number;
  /** Most events leased by one statement (default 256, at least `concurrency`); 4 times that are held at most. */
  readonly leaseBatch?: number;
  /** How long a leased event is this deliverer's (default 60 s: well over the timeout). */
  readonly leaseMs?: number;
  /** Deadline of one attempt (default 10 s). */
  readonly timeoutMs?: number;
  /** Sleep between looks at the outbox when nothing is due (default 250 ms). */
  readonly pollIntervalMs?: number;
  /** The HTTP side (default: undici with the address guard). */
  readonly sender?: WebhookSender;
  /** Told of each attempt once it is recorded, by outcome (the attempts counter of /metrics). */
  readonly onAttempt?: (outcome: AttemptOutcome['kind']) => void;
  /** Told when a look at the outbox or a write of outcomes finishes (the role's liveness). */
  readonly onRound?: () => void;
}

export interface Deliverer {
  /** Delivers everything due at the clock's now, and what that unblocks; resolves when idle. */
  runDueNow(): Promise<number>;
  /** Runs in the background until stop(). */
  start(): void;
  /** Stops leasing, cuts attempts in flight short (their events go back unattempted), closes. */
  stop(): Promise<void>;
}

const STATISTICS_EVERY_MS = 10 * 60_000;
/** An event is sent only while its lease has this much left beyond the attempt's deadline. */
const LEASE_MARGIN_MS = 5_000;

export function createDeliverer(options: DelivererOptions): Deliverer {
  const { db, log } = options;
  const clock = options.clock ?? (() => new Date());
  const random = options.random ?? Math.random;
  const owner = options.owner ?? `deliverer-${randomUUID()}`;
  const concurrency = options.concurrency ?? 32;
  const perOriginLimit = options.perOriginLimit ?? 8;
  const leaseBatch = Math.max(options.leaseBatch ?? 256, concurrency);
  /** Events held at most: the next lease is taken while a quarter of the hand is free. */
  const capacity = 4 * leaseBatch;
  const timeoutMs = options.timeoutMs ?? 10_000;
  // Room for an attempt and the margin even when an event waits in hand a little.
  const leaseMs = Math.max(options.leaseMs ?? 60_000, timeoutMs + 2 * LEASE_MARGIN_MS);
  const pollIntervalMs = options.pollIntervalMs ?? 250;
  const sender =
    options.sender ??
    createWebhookSender({
      allow: options.allow,
      timeoutMs,
      connectionsPerOrigin: perOriginLimit,
      ...(options.resolve !== undefined && { resolve: options.resolve }),
    });
  const stopping = new AbortController();
  // Every attempt in flight listens to it (up to `concurrency`): not a leak.
  setMaxListeners(0, stopping.signal);
  const slots = new ReceiverSlots<LeasedEvent>(concurrency, perOriginLimit, (event) =>
    deliver(event).catch((err) =>
      log.error({ err, eventId: event.id, ticketId: event.ticketId }, 'callback delivery failed'),
    ),
  );
  /** Statements the writer has finished: each may have unblocked events. */
  let flushes = 0;
  const writer = outboxWriter(db, {
    // PGlite runs each statement on this thread: fewer, larger writes leave more of it to HTTP.
    gatherMs: db.dialect === 'pglite' ? 5 : 2,
    onFlushed: () => {
      options.onRound?.();
      flushes++;
      slots.signal();
    },
  });
  const room = new ReceiverRoom(perOriginLimit, capacity);
  const leasing = new RoomLease(
    room,
    slots,
    { owner, leaseMs, perOrigin: perOriginLimit, quietMs: pollIntervalMs, clock },
    (req) => leaseDueEvents(db, req),
  );
  const keys = new SigningKeys(options.masterKey);
  let settled = 0;
  let background: Promise<void> | null = null;

  /** Hands a write to the writer; counts the event settled (and tells /metrics) once written. */
  function write(event: LeasedEvent, outcome: AttemptOutcome | 'unsent' | 'release', written: Promise<void>) {
    written.then(
      () => {
        if (outcome === 'release') return;
        settled++;
        if (outcome !== 'unsent') options.onAttempt?.(outcome.kind);
      },
      (err) =>
        log.error({ err, eventId: event.id, ticketId: event.ticketId }, 'writing a callback outcome failed'),
    );
  }

  function release(event: LeasedEvent): void {
    write(event, 'release', writer.write({ kind: 'release', event, owner }));
  }

  /** Leases into the free room; true when leasing again at once may find more (all asked came). */
  async function fill(): Promise<boolean> {
    const asked = Math.min(leaseBatch, capacity - slots.held);
    if (asked <= 0 || stopping.signal.aborted) return false;
    return (await leasing.fill(asked)) === asked;
  }

  async function deliver(event: LeasedEvent): Promise<void> {
    if (stopping.signal.aborted) return release(event);
    if (event.callbacksStoppedAt !== null) {
      const why = 'not sent: the receiver answered 410 Gone to an earlier event';
      return write(event, 'unsent', writer.write({ kind: 'unsent', event, owner, state: 'dead', why }));
    }
    if (event.callbackUrl === null) {
      const why = 'not sent: the ticket has no callback URL';
      return write(event, 'unsent', writer.write({ kind: 'unsent', event, owner, state: 'failed', why }));
    }
    const at = clock();
    // Waited in hand too long: another deliverer may take it before this attempt could end.
    if (event.leaseUntil.getTime() - at.getTime() < timeoutMs + LEASE_MARGIN_MS) return release(event);
    const body = eventBody(event.payload);
    const key = keys.keyOf(event.callbackSecretEnc ?? event.keySecretEnc);
    let result: Exclude<SendResult, { kind: 'aborted' }>;
    if (key.kind === 'unreadable') {
      log.error(
        { err: key.error, ticketId: event.ticketId },
        'the signing secret of a callback cannot be opened',
      );
      result = { kind: 'refused', reason: 'not sent: the signing secret cannot be opened', latencyMs: 0 };
    } else {
      const headers = webhookHeaders({ webhookId: event.webhookId, at, body }, key.key);
      const sent = await sender.send({ url: event.callbackUrl, headers, body, signal: stopping.signal });
      if (sent.kind === 'aborted') return release(event);
      result = sent;
      room.answered(event.origin, result.kind === 'answered' ? result.latencyMs : timeoutMs);
    }
    const outcome = outcomeOf(event, result, at);
    const attempt = attemptRecord(result, at);
    write(event, outcome, writer.write({ kind: 'attempt', event, owner, attempt, outcome }));
  }

  function outcomeOf(
    event: LeasedEvent,
    result: Exclude<SendResult, { kind: 'aborted' }>,
    at: Date,
  ): AttemptOutcome {
    const answer = result.kind === 'answered' ? result : undefined;
    return attemptVerdict(
      { answer, attemptsBefore: event.attempts, firstAttemptAt: event.firstAttemptAt, at },
      random,
    );
  }

  /** The events an earlier run of this owner held go back to the outbox (start()). */
  async function takeBackOwnLeases(): Promise<void> {
    const released = await releaseEventLeases(db, owner).catch((err: unknown) => {
      log.warn(
        { err, owner },
        "giving back an earlier run's callback leases failed; they run out by themselves",
      );
      return 0;
    });
    if (released > 0)
      log.info(
        { owner, events: released },
        'callback events an earlier run of this deliverer held are due again',
      );
  }

  let statisticsAt = Number.NEGATIVE_INFINITY;
  /**
   * PGlite runs no autovacuum: without fresh statistics the planner sorts every due event on
   * each lease. The background loop refreshes them every 10 minutes there.
   */
  async function refreshStatistics(): Promise<void> {
    if (db.dialect !== 'pglite' || performance.now() - statisticsAt < STATISTICS_EVERY_MS) return;
    statisticsAt = performance.now();
    await analyzeOutbox(db).catch((err) => log.warn({ err }, 'ANALYZE failed'));
  }

  /**
   * Leases when there is room for a whole batch (a quarter of the hand), so the next batch
   * is on its way while the ones in hand are sent, and when a lease may find something new: the last one
   * came back full, a write landed since (it may have unblocked a ticket's next event or
   * freed a receiver), or (running in the background) the poll interval passed. Without
   * `forever`, returns once nothing is in hand, nothing is left to write and a lease made after
   * the last write found nothing more.
   */
  async function pump(forever: boolean): Promise<void> {
    let leasedAtFlush = -1;
    let lastFull = false;
    let lastLeaseAt = Number.NEGATIVE_INFINITY;
    while (!stopping.signal.aborted) {
      if (forever) await refreshStatistics();
      const version = slots.version;
      const roomy = capacity - slots.held >= leaseBatch;
      const worth =
        lastFull ||
        flushes !== leasedAtFlush ||
        (forever && performance.now() - lastLeaseAt >= pollIntervalMs);
      if (roomy && worth) {
        leasedAtFlush = flushes;
        lastLeaseAt = performance.now();
        lastFull = false;
        try {
          lastFull = await fill();
          options.onRound?.();
        } catch (err) {
          log.error({ err }, 'leasing callbacks failed');
          if (!forever) throw err;
        }
        continue;
      }
      if (!forever && slots.held === 0 && writer.pending === 0 && !worth) return;
      await slots.changed(version, forever ? pollIntervalMs : null, stopping.signal);
    }
  }

  return {
    async runDueNow() {
      const before = settled;
      await pump(false);
      await slots.idle();
      await writer.idle();
      return settled - before;
    },
    start() {
      if (background !== null) return;
      const released = options.releaseOwnLeasesAtStart === true ? takeBackOwnLeases() : Promise.resolve();
      background = released
        .then(() => pump(true))
        .catch((err) => log.error({ err }, 'deliverer stopped on an error'));
    },
    async stop() {
      stopping.abort();
      await background;
      for (const event of slots.takeWaiting()) release(event);
      await slots.idle();
      await writer.idle();
      if (options.sender === undefined) await sender.close();
    },
  };
}

function attemptRecord(result: Exclude<SendResult, { kind: 'aborted' }>, at: Date) {
  if (result.kind === 'answered') {
    const ok = result.status >= 200 && result.status < 300;
    const error = ok ? null : `HTTP ${result.status}${result.excerpt === '' ? '' : `: ${result.excerpt}`}`;
    return { at, statusCode: result.status, latencyMs: result.latencyMs, error };
  }
  const error = result.kind === 'refused' ? result.reason : result.error;
  return { at, statusCode: null, latencyMs: result.latencyMs, error };
}
