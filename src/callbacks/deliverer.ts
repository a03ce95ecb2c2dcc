// The deliverer role: leases due events from the outbox and POSTs each, signed, to its
// ticket's callback URL. A 2xx is delivered; 410 Gone stops the ticket's callbacks; anything
// else is tried again on the retry schedule for 24 h. At most `concurrency` deliveries are in
// flight, at most `perOriginLimit` to one receiver, and a deliverer leases no more events of
// a receiver that already has that many in hand: a slow or dead receiver holds up no one else.
// Time and randomness are injected: tests move the clock and call runDueNow().
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { openString } from '../crypto/secret-box.js';
import type { Db } from '../store/db.js';
import type { Logger } from '../usecases/context.js';
import type { CallbackAllowList, Resolver } from './address-guard.js';
import { attemptRecorder } from './attempt-recorder.js';
import { eventBody } from './event-body.js';
import {
  type AttemptOutcome,
  type LeasedEvent,
  leaseDueEvents,
  releaseEvent,
  settleUnsent,
} from './outbox-store.js';
import { ReceiverSlots } from './receiver-slots.js';
import { nextRetry, parseRetryAfter } from './retry-schedule.js';
import { signingKeyOf, webhookHeaders } from './signer.js';
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
  /** Deliveries in flight at once (default 32). */
  readonly concurrency?: number;
  /** Deliveries in flight to one receiver origin (default 8). */
  readonly perOriginLimit?: number;
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

export function createDeliverer(options: DelivererOptions): Deliverer {
  const { db, log } = options;
  const clock = options.clock ?? (() => new Date());
  const random = options.random ?? Math.random;
  const owner = options.owner ?? `deliverer-${randomUUID()}`;
  const concurrency = options.concurrency ?? 32;
  const perOriginLimit = options.perOriginLimit ?? 8;
  const leaseMs = options.leaseMs ?? 60_000;
  const pollIntervalMs = options.pollIntervalMs ?? 250;
  const sender =
    options.sender ??
    createWebhookSender({
      allow: options.allow,
      ...(options.resolve !== undefined && { resolve: options.resolve }),
      ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
    });
  const stopping = new AbortController();
  const slots = new ReceiverSlots<LeasedEvent>(concurrency, perOriginLimit, (event) =>
    (stopping.signal.aborted ? releaseEvent(db, event.id, owner) : deliver(event)).catch((err) =>
      log.error({ err, eventId: event.id, ticketId: event.ticketId }, 'callback delivery failed'),
    ),
  );
  const recorder = attemptRecorder(db);
  let settled = 0;
  let background: Promise<void> | null = null;
  /** When (performance.now) a lease that skipped busy receivers found nothing else due. */
  let othersDrainedAt = Number.NEGATIVE_INFINITY;

  /**
   * Leases into the free slots, skipping busy receivers; true when leasing again at once may
   * find more (every slot asked for was filled, or a receiver became busy and the others
   * were not found empty within the poll interval).
   */
  async function fill(): Promise<boolean> {
    slots.consumeChange();
    const asked = slots.free;
    if (asked === 0 || stopping.signal.aborted) return false;
    const busyOrigins = slots.busyOrigins();
    const othersDrainedLately = performance.now() - othersDrainedAt < pollIntervalMs;
    // Every receiver in hand is busy and the others had nothing due a moment ago: a lease now
    // would only scan past the busy receivers' backlog again.
    if (busyOrigins.length > 0 && busyOrigins.length === slots.receiversInHand && othersDrainedLately)
      return false;
    const events = await leaseDueEvents(db, {
      owner,
      now: clock(),
      leaseMs,
      limit: asked,
      perOrigin: perOriginLimit,
      busyOrigins,
    });
    slots.admit(events);
    if (events.length === 0 && busyOrigins.length > 0) othersDrainedAt = performance.now();
    if (events.length === asked) return true;
    return slots.busyOrigins().length > busyOrigins.length && !othersDrainedLately;
  }

  async function deliver(event: LeasedEvent): Promise<void> {
    if (event.callbacksStoppedAt !== null) {
      await settleUnsent(
        db,
        event.id,
        owner,
        'dead',
        'not sent: the receiver answered 410 Gone to an earlier event',
      );
      settled++;
      return;
    }
    if (event.callbackUrl === null) {
      await settleUnsent(db, event.id, owner, 'failed', 'not sent: the ticket has no callback URL');
      settled++;
      return;
    }
    const at = clock();
    const body = eventBody(event.payload);
    let key: Uint8Array | null;
    try {
      key = keyOf(event);
    } catch (err) {
      log.error({ err, ticketId: event.ticketId }, 'the signing secret of a callback cannot be opened');
      const failed = {
        kind: 'refused',
        reason: 'not sent: the signing secret cannot be opened',
        latencyMs: 0,
      } as const;
      const outcome = outcomeOf(event, failed, at);
      await recorder.record({ event, owner, attempt: attemptRecord(failed, at), outcome });
      options.onAttempt?.(outcome.kind);
      settled++;
      return;
    }
    const headers = webhookHeaders({ webhookId: event.webhookId, at, body }, key);
    const result = await sender.send({ url: event.callbackUrl, headers, body, signal: stopping.signal });
    if (result.kind === 'aborted') {
      await releaseEvent(db, event.id, owner);
      return;
    }
    const record = attemptRecord(result, at);
    const outcome = outcomeOf(event, result, at);
    await recorder.record({ event, owner, attempt: record, outcome });
    options.onAttempt?.(outcome.kind);
    settled++;
  }

  function keyOf(event: LeasedEvent): Uint8Array | null {
    const sealed = event.callbackSecretEnc ?? event.keySecretEnc;
    if (sealed === null) return null;
    return signingKeyOf(openString(options.masterKey, sealed));
  }

  function outcomeOf(
    event: LeasedEvent,
    result: Exclude<SendResult, { kind: 'aborted' }>,
    at: Date,
  ): AttemptOutcome {
    if (result.kind === 'answered') {
      if (result.status >= 200 && result.status < 300) return { kind: 'delivered' };
      if (result.status === 410) return { kind: 'gone' };
    }
    const decision = nextRetry(
      {
        failures: event.attempts + 1,
        firstAttemptAt: event.firstAttemptAt ?? at,
        now: at,
        retryAfterMs: result.kind === 'answered' ? parseRetryAfter(result.retryAfter, at) : undefined,
      },
      random,
    );
    return decision.kind === 'retry' ? { kind: 'retry', at: decision.at } : { kind: 'failed' };
  }

  let statisticsAt = Number.NEGATIVE_INFINITY;
  /**
   * PGlite runs no autovacuum: without fresh statistics the planner sorts every due event on
   * each lease. The background loop refreshes them every 10 minutes there.
   */
  async function refreshStatistics(): Promise<void> {
    if (db.dialect !== 'pglite' || performance.now() - statisticsAt < STATISTICS_EVERY_MS) return;
    statisticsAt = performance.now();
    await db
      .query('ANALYZE events, delivery_attempts, tickets')
      .catch((err) => log.warn({ err }, 'ANALYZE failed'));
  }

  /** Fills the slots until nothing is due; with `forever`, polls until stopped. */
  async function pump(forever: boolean): Promise<void> {
    while (!stopping.signal.aborted) {
      if (forever) await refreshStatistics();
      let more = false;
      try {
        more = await fill();
      } catch (err) {
        log.error({ err }, 'leasing callbacks failed');
        if (!forever) throw err;
      }
      if (more) continue;
      // Done when nothing is in hand and nothing changed while leasing (a receiver that was
      // skipped as busy may have finished everything in the meantime).
      if (!forever && slots.held === 0 && !slots.hasChanged) return;
      await slots.changed(forever || slots.held === 0 ? pollIntervalMs : null, stopping.signal);
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
      background = pump(true).catch((err) => log.error({ err }, 'deliverer stopped on an error'));
    },
    async stop() {
      stopping.abort();
      await background;
      await slots.idle();
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
