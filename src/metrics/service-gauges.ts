// Gauges read from the database when Prometheus scrapes: tickets by status, the callback
// outbox (events by state; pending is the depth) and the funding pool (outputs and
// satoshis available). A failed read leaves the last values and is logged. (Delivery
// attempts are a counter the deliverer moves: service-metrics.ts.)
import { Gauge } from 'prom-client';
import { outboxEventCounts } from '../store/callbacks/delivery-stats.js';
import type { Queryable } from '../store/db/db.js';
import { availableFunding } from '../store/funding/funding-pool.js';
import { ticketCounts } from '../store/tickets/ticket-queries.js';
import type { ServiceMetrics } from './service-metrics.js';

export interface GaugeSources {
  readonly db: Queryable;
  readonly log: { warn(obj: object, msg: string): void };
}

export function registerServiceGauges(metrics: ServiceMetrics, sources: GaugeSources): void {
  const { registry } = metrics;
  const guarded = <G>(what: string, read: (gauge: G) => Promise<void>) =>
    async function (this: G) {
      try {
        await read(this);
      } catch (err) {
        sources.log.warn({ err }, `metrics: reading ${what} failed`);
      }
    };

  new Gauge({
    name: 'tokenproxy_tickets',
    help: 'Tickets by status.',
    labelNames: ['status'],
    registers: [registry],
    collect: guarded('tickets', async (gauge: Gauge<'status'>) => {
      const counts = await ticketCounts(sources.db);
      for (const [status, n] of Object.entries(counts)) gauge.set({ status }, n);
    }),
  });

  new Gauge({
    name: 'tokenproxy_outbox_events',
    help: 'Callback events by state (pending: the outbox depth).',
    labelNames: ['state'],
    registers: [registry],
    collect: guarded('the outbox', async (gauge: Gauge<'state'>) => {
      const counts = await outboxEventCounts(sources.db);
      for (const [state, n] of Object.entries(counts)) gauge.set({ state }, n);
    }),
  });

  new Gauge({
    name: 'tokenproxy_funding_pool_outputs',
    help: 'Available funding pool outputs (one pays one transfer fee).',
    registers: [registry],
    collect: guarded('the funding pool', async (gauge: Gauge) => {
      gauge.set((await availableFunding(sources.db)).outputs);
    }),
  });
  new Gauge({
    name: 'tokenproxy_funding_pool_satoshis',
    help: 'Satoshis in available funding pool outputs.',
    registers: [registry],
    collect: guarded('the funding pool', async (gauge: Gauge) => {
      gauge.set(Number((await availableFunding(sources.db)).satoshis));
    }),
  });
}
