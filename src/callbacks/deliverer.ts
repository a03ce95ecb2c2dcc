// The deliverer role: leases due events from the outbox and POSTs each, signed, to its
// ticket's callback URL. A 2xx is delivered; 410 Gone stops the ticket's callbacks; anything
// else is tried again on the retry schedule for 24 h. At most `concurrency` deliveries are in
// flight, at most `perOriginLimit` to one receiver, and a deliverer leases no more events of
// a receiver that already has that many in hand: a slow or dead receiver holds up no one else.
// Time and randomness are injected: tests move the clock and call runDueNow().
import { randomUUID } from 'node:crypto';
import { openString } from '../crypto/secret-box.js';
import type { Db } from '../store/db.js';
import type { Logger } from '../usecases/context.js';
import type { CallbackAllowList, Resolver } from './address-guard.js';
import { eventBody } from './event-body.js';
import {
  type AttemptOutcome,
  type LeasedEvent,
  leaseDueEvents,
  recordAttempt,
  releaseEvent,
  settleUnsent,
} from './outbox-store.js';
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
  /** Deliveries in flight to one receiver origin (default 4). */
  readonly perOriginLimit?: number;
  /** How long a leased event is this deliverer's (default 60 s: well over the timeout). */
  readonly leaseMs?: number;
  /** Deadline of one attempt (default 10 s). */
  readonly timeoutMs?: number;
  /** Sleep between looks at the outbox when nothing is due (default 250 ms). */
  readonly pollIntervalMs?: number;
  /** The HTTP side (default: undici with the address guard). */
  readonly sender?: WebhookSender;
}

export interface Deliverer {
  /** Delivers everything due at the clock's now, and what that unblocks; resolves when idle. */
  runDueNow(): Promise<number>;
  /** Runs in the background until stop(). */
  start(): void;
  /** Stops leasing, cuts attempts in flight short (their events go back unattempted), closes. */
  stop(): Promise<void>;
}

export function createDeliverer(options: DelivererOptions): Deliverer {
  const { db, log } = options;
  const clock = options.clock ?? (() => new Date());
  const random = options.random ?? Math.random;
  const owner = options.owner ?? `deliverer-${randomUUID()}`;
  const concurrency = options.concurrency ?? 32;
  const perOriginLimit = options.perOriginLimit ?? 4;
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
  const inFlight = new Set<Promise<void>>();
  /** Per receiver: deliveries sending now, and leased events waiting for a free slot. */
  const receivers = new Map<string, { sending: number; waiting: LeasedEvent[] }>();
  let held = 0;
  let settled = 0;
  let background: Promise<void> | null = null;

  /** Leases into the free slots (skipping receivers with enough in hand); returns how many. */
  async function fill(): Promise<number> {
    const free = concurrency - held;
    if (free <= 0 || stopping.signal.aborted) return 0;
    const busyOrigins = [...receivers].filter(([, r]) => r.sending + r.waiting.length >= perOriginLimit);
    const events = await leaseDueEvents(db, {
      owner,
      now: clock(),
      leaseMs,
      limit: free,
      perOrigin: perOriginLimit,
      busyOrigins: busyOrigins.map(([origin]) => origin),
    });
    for (const event of events) {
      held++;
      const receiver = receivers.get(event.origin) ?? { sending: 0, waiting: [] };
      receivers.set(event.origin, receiver);
      receiver.waiting.push(event);
      drain(event.origin);
    }
    return events.length;
  }

  /** Starts the receiver's waiting events while it has free slots. */
  function drain(origin: string): void {
    const receiver = receivers.get(origin);
    if (receiver === undefined) return;
    while (receiver.sending < perOriginLimit && receiver.waiting.length > 0) {
      const event = receiver.waiting.shift()!;
      receiver.sending++;
      const running: Promise<void> = (
        stopping.signal.aborted ? releaseEvent(db, event.id, owner) : deliver(event)
      )
        .catch((err) =>
          log.error({ err, eventId: event.id, ticketId: event.ticketId }, 'callback delivery failed'),
        )
        .finally(() => {
          inFlight.delete(running);
          held--;
          receiver.sending--;
          if (receiver.sending === 0 && receiver.waiting.length === 0) receivers.delete(origin);
          else drain(origin);
        });
      inFlight.add(running);
    }
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
      await recordAttempt(db, event, owner, attemptRecord(failed, at), outcomeOf(event, failed, at));
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
    await recordAttempt(db, event, owner, record, outcomeOf(event, result, at));
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

  /** Fills the slots until nothing is due; with `forever`, polls until stopped. */
  async function pump(forever: boolean): Promise<void> {
    while (!stopping.signal.aborted) {
      let leased = 0;
      try {
        leased = await fill();
      } catch (err) {
        log.error({ err }, 'leasing callbacks failed');
        if (!forever) throw err;
      }
      if (leased > 0 && held < concurrency) continue;
      if (!forever && leased === 0 && held === 0) return;
      const waits: Promise<unknown>[] = [...inFlight];
      if (forever || inFlight.size === 0) waits.push(sleep(pollIntervalMs, stopping.signal));
      await Promise.race(waits);
    }
  }

  async function settle(): Promise<void> {
    while (inFlight.size > 0) await Promise.all([...inFlight]);
  }

  return {
    async runDueNow() {
      const before = settled;
      await pump(false);
      await settle();
      return settled - before;
    },
    start() {
      if (background !== null) return;
      background = pump(true).catch((err) => log.error({ err }, 'deliverer stopped on an error'));
    },
    async stop() {
      stopping.abort();
      await background;
      await settle();
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

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
