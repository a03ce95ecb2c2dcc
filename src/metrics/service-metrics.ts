// The service's Prometheus metrics, one registry per running service: HTTP requests per
// route (rate, latency, errors), ledger round trips, ticket timings (ticket-timings.ts),
// callback attempts (counted by the deliverer), address webhooks (events the dispatcher wrote,
// attempts and their latency, subscriptions disabled: counted by the deliverer), the tracker's sweeps, and Node's own (event-loop
// lag, memory, GC, process_start_time_seconds). Every process has them; each is moved only by the
// process doing the work, so a deployment's figure is the sum over its processes.
// Gauges read from the database at scrape time live in service-gauges.ts.
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import { scoreDrawTotals } from '../store/db/score-draw-timing.js';

export interface ServiceMetrics {
  readonly registry: Registry;
  /** Requests answered, by method, route pattern and status code. */
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  /** Time to answer, seconds, by method, route pattern and status class. */
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  /** Answers with a 5xx status, by method and route pattern. */
  readonly httpErrors: Counter<'method' | 'route'>;
  /** Ledger calls, seconds, by operation and outcome (ok, error). */
  readonly ledgerDuration: Histogram<'operation' | 'outcome'>;
  /** Seconds from a ticket's submission to its first SUCCESS (observed once per ticket). */
  readonly ticketTimeToSuccess: Histogram;
  /** Seconds from a ticket's submission to its first MINED (observed once per ticket). */
  readonly ticketTimeToMined: Histogram;
  /** Callback delivery attempts recorded by this process's deliverer, by outcome. */
  readonly callbackAttempts: Counter<'outcome'>;
  /** Address webhook events the dispatcher wrote, by event status (unconfirmed, confirmed, ...). */
  readonly subscriptionEvents: Counter<'status'>;
  /** Address webhook delivery attempts recorded by this process's deliverer, by outcome. */
  readonly subscriptionAttempts: Counter<'outcome'>;
  /** Seconds one address webhook delivery attempt took (send to answer), by outcome. */
  readonly subscriptionDeliveryDuration: Histogram<'outcome'>;
  /** Address subscriptions disabled by the deliverer, by reason (gone: a 410; failing). */
  readonly subscriptionsDisabled: Counter<'reason'>;
  /** Submissions per batch of the submission pipeline, by stage (lookup, commit). */
  readonly batchSize: Histogram<'stage'>;
  /** Seconds a batch of the submission pipeline takes, by stage and outcome (ok, error). */
  readonly batchDuration: Histogram<'stage' | 'outcome'>;
  /** The tracker's sweeps, by outcome (ok, error): moved only where the tracker runs. */
  readonly trackerRounds: Counter<'outcome'>;
  /** Seconds one sweep of the tracker takes. */
  readonly trackerRoundDuration: Histogram;
}

/** Outcomes of a callback delivery attempt (store/callbacks/callback-outbox.ts AttemptOutcome). */
export const CALLBACK_OUTCOMES = ['delivered', 'retry', 'failed', 'gone'] as const;

/** Statuses of an address webhook event (usecases/subscriptions/address-event.ts EventStatus). */
export const SUBSCRIPTION_EVENT_STATUSES = ['unconfirmed', 'confirmed', 'reorged', 'failed'] as const;

/** Why the deliverer disables an address subscription: a 410 Gone, or deliveries failing too long. */
export const SUBSCRIPTION_DISABLE_REASONS = ['gone', 'failing'] as const;

/** Seconds from submission to SUCCESS / MINED: a second's fraction up to hours (blocks can be slow). */
export const TICKET_TIME_BUCKETS = [
  0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 14400,
];

/**
 * How often prom-client samples the event loop, ms. Its `nodejs_eventloop_lag_*` figures are the
 * intervals between samples, this one included: an idle process reads 20 ms, not 0.
 */
export const EVENT_LOOP_SAMPLE_MS = 20;

export function createServiceMetrics(options: { readonly defaultMetrics?: boolean } = {}): ServiceMetrics {
  const registry = new Registry();
  if (options.defaultMetrics !== false) {
    collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  }
  const metrics: ServiceMetrics = {
    registry,
    httpRequests: new Counter({
      name: 'tokenproxy_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status code.',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'tokenproxy_http_request_duration_seconds',
      help: 'Time to answer an HTTP request, seconds.',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    httpErrors: new Counter({
      name: 'tokenproxy_http_errors_total',
      help: 'HTTP requests answered with a 5xx status, by method and route pattern.',
      labelNames: ['method', 'route'],
      registers: [registry],
    }),
    ledgerDuration: new Histogram({
      name: 'tokenproxy_ledger_request_duration_seconds',
      help: 'Round-trip time of a ledger call, seconds, by operation and outcome.',
      labelNames: ['operation', 'outcome'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    ticketTimeToSuccess: new Histogram({
      name: 'tokenproxy_ticket_time_to_success_seconds',
      help: 'Seconds from a ticket’s submission to its first SUCCESS (the network accepted it).',
      buckets: TICKET_TIME_BUCKETS,
      registers: [registry],
    }),
    ticketTimeToMined: new Histogram({
      name: 'tokenproxy_ticket_time_to_mined_seconds',
      help: 'Seconds from a ticket’s submission to its first MINED (in a block).',
      buckets: TICKET_TIME_BUCKETS,
      registers: [registry],
    }),
    callbackAttempts: new Counter({
      name: 'tokenproxy_callback_delivery_attempts_total',
      help: 'Callback delivery attempts recorded, by outcome (delivered, retry, failed: gave up after 24 h, gone: 410).',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    subscriptionEvents: new Counter({
      name: 'tokenproxy_subscription_events_total',
      help: 'Address webhook events written by the dispatcher, by event status (unconfirmed, confirmed, reorged, failed).',
      labelNames: ['status'],
      registers: [registry],
    }),
    subscriptionAttempts: new Counter({
      name: 'tokenproxy_subscription_delivery_attempts_total',
      help: 'Address webhook delivery attempts recorded, by outcome (delivered, retry, failed: gave up after 24 h, gone: 410).',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    subscriptionDeliveryDuration: new Histogram({
      name: 'tokenproxy_subscription_delivery_duration_seconds',
      help: 'Time one address webhook delivery attempt took, from sending to the answer (or the error), seconds, by outcome.',
      labelNames: ['outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    subscriptionsDisabled: new Counter({
      name: 'tokenproxy_subscriptions_disabled_total',
      help: 'Address subscriptions the deliverer disabled, by reason (gone: the receiver answered 410; failing: deliveries failed for subscriptionDisableAfterMs).',
      labelNames: ['reason'],
      registers: [registry],
    }),
    batchSize: new Histogram({
      name: 'tokenproxy_submission_batch_size',
      help: 'Transfers in one batch of the submission pipeline, by stage (lookup: the reads; commit: the write).',
      labelNames: ['stage'],
      buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512],
      registers: [registry],
    }),
    batchDuration: new Histogram({
      name: 'tokenproxy_submission_batch_duration_seconds',
      help: 'Time one batch of the submission pipeline takes in the database, seconds, by stage and outcome.',
      labelNames: ['stage', 'outcome'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    trackerRounds: new Counter({
      name: 'tokenproxy_tracker_rounds_total',
      help: 'Sweeps of the tracker (due blocks and tickets looked at), by outcome (ok, error).',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    trackerRoundDuration: new Histogram({
      name: 'tokenproxy_tracker_round_duration_seconds',
      help: 'Time one sweep of the tracker takes, seconds.',
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    }),
  };
  // How the change feed's scores are drawn, read from the store's totals as Prometheus scrapes.
  const scoreDraws = (name: string, help: string, read: () => number) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect(this: Counter) {
        this.reset();
        this.inc(read());
      },
    });
  scoreDraws(
    'tokenproxy_score_draw_seconds_total',
    'Time this process had a statement drawing change feed scores in flight, seconds: an upper bound on the serial part of its writes.',
    () => scoreDrawTotals().drawSeconds,
  );
  scoreDraws(
    'tokenproxy_scores_drawn_total',
    'Change feed scores this process drew.',
    () => scoreDrawTotals().scoresDrawn,
  );
  scoreDraws(
    'tokenproxy_score_marker_held_seconds_total',
    "Time some transaction of this process held a change feed marker, seconds: how long it may hold readers' feed bound back.",
    () => scoreDrawTotals().markerSeconds,
  );
  // Every outcome shows from the start (at 0), so that rates and alerts have a series to read.
  for (const outcome of CALLBACK_OUTCOMES) metrics.callbackAttempts.inc({ outcome }, 0);
  for (const status of SUBSCRIPTION_EVENT_STATUSES) metrics.subscriptionEvents.inc({ status }, 0);
  for (const outcome of CALLBACK_OUTCOMES) metrics.subscriptionAttempts.inc({ outcome }, 0);
  for (const reason of SUBSCRIPTION_DISABLE_REASONS) metrics.subscriptionsDisabled.inc({ reason }, 0);
  for (const outcome of ['ok', 'error']) metrics.trackerRounds.inc({ outcome }, 0);
  return metrics;
}
