// Gauges read from the database when Prometheus scrapes: tickets by status and the age of the
// oldest live ticket, the callback outbox (events by state; pending is the depth; the oldest
// pending event's age), address webhooks (the dispatcher's lag behind the feed, the oldest pending
// event's age), the funding pool (outputs and satoshis available, its low-water mark)
// and the supply (where it is, and how far it is from the genesis supply: 0 when it balances).
// Every process reads the same database, so only the processes running the tracker register
// them (service.ts): one series per deployment, aggregated with max, not sum (docs/operations.md
// Metrics). A failed read leaves the last values and is logged. A scrape collects every gauge at
// once; their reads run one at a time, so a scrape holds one connection of the pool, never the
// ones the write path is waiting for. (Delivery attempts are a counter the deliverer moves:
// service-metrics.ts.)
import { Gauge } from 'prom-client';
import { outboxEventCounts } from '../store/callbacks/event-counts.js';
import type { Queryable } from '../store/db/db.js';
import { oneAtATime } from '../store/db/one-at-a-time.js';
import { availableFunding } from '../store/funding/funding-pool.js';
import { oldestLiveTicketAges, oldestPendingEventAge } from '../store/operator/health-gauges.js';
import {
  dispatchLagScores,
  oldestPendingSubscriptionEventAge,
} from '../store/subscriptions/subscription-gauges.js';
import { ticketCounts } from '../store/tickets/ticket-counts.js';
import { keptSupply } from '../store/wallets/kept-supply.js';
import type { ServiceMetrics } from './service-metrics.js';

export interface GaugeSources {
  readonly db: Queryable;
  readonly log: { warn(obj: object, msg: string): void };
  /** The token's treasury and burn addresses (where the supply is). */
  readonly token: { readonly mintAddress: string; readonly burnAddress: string };
  /** The supply minted at deploy, atomic units. */
  readonly genesisSupply: bigint;
  /** The funding pool's refill threshold (fundingPoolLowWater), outputs. */
  readonly lowWater: number;
}

/** Names of the gauges registered here (the dashboard test reads them). */
export const SERVICE_GAUGE_NAMES = [
  'tokenproxy_tickets',
  'tokenproxy_ticket_oldest_seconds',
  'tokenproxy_outbox_events',
  'tokenproxy_outbox_oldest_pending_seconds',
  'tokenproxy_subscription_dispatch_lag_scores',
  'tokenproxy_subscription_oldest_pending_seconds',
  'tokenproxy_funding_pool_outputs',
  'tokenproxy_funding_pool_satoshis',
  'tokenproxy_funding_pool_low_water',
  'tokenproxy_supply_units',
  'tokenproxy_supply_imbalance_units',
] as const;

/** A read shared by the gauges of one scrape (collected together), made again at the next. */
function oncePerScrape<T>(read: () => Promise<T>): () => Promise<T> {
  let reading: Promise<T> | null = null;
  return () => {
    reading ??= read().finally(() => setImmediate(() => (reading = null)));
    return reading;
  };
}

export function registerServiceGauges(metrics: ServiceMetrics, sources: GaugeSources): void {
  const { registry } = metrics;
  const registers = [registry];
  const db = oneAtATime(sources.db);
  // One read of the funding pool per scrape, shared by its two gauges.
  const readFunding = oncePerScrape(() => availableFunding(db));
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
    help: 'Tickets by status (read from the database by the tracker processes).',
    labelNames: ['status'],
    registers,
    collect: guarded('tickets', async (gauge: Gauge<'status'>) => {
      const counts = await ticketCounts(db);
      for (const [status, n] of Object.entries(counts)) gauge.set({ status }, n);
    }),
  });
  new Gauge({
    name: 'tokenproxy_ticket_oldest_seconds',
    help: 'Seconds since the oldest ticket in BROADCASTING and in SUCCESS was submitted (0: none).',
    labelNames: ['status'],
    registers,
    collect: guarded('ticket ages', async (gauge: Gauge<'status'>) => {
      for (const [status, age] of Object.entries(await oldestLiveTicketAges(db))) gauge.set({ status }, age);
    }),
  });

  new Gauge({
    name: 'tokenproxy_outbox_events',
    help: 'Callback events by state (pending: the outbox depth).',
    labelNames: ['state'],
    registers,
    collect: guarded('the outbox', async (gauge: Gauge<'state'>) => {
      const counts = await outboxEventCounts(db);
      for (const [state, n] of Object.entries(counts)) gauge.set({ state }, n);
    }),
  });
  new Gauge({
    name: 'tokenproxy_outbox_oldest_pending_seconds',
    help: 'Seconds since the oldest callback event still pending was made (0: none pending).',
    registers,
    collect: guarded('the outbox', async (gauge: Gauge) => {
      gauge.set(await oldestPendingEventAge(db));
    }),
  });

  new Gauge({
    name: 'tokenproxy_subscription_dispatch_lag_scores',
    help: 'The change feed’s newest score less the address webhook dispatcher’s cursor (0: caught up; scores have gaps).',
    registers,
    collect: guarded('the dispatcher’s cursor', async (gauge: Gauge) => {
      gauge.set(Number(await dispatchLagScores(db)));
    }),
  });
  new Gauge({
    name: 'tokenproxy_subscription_oldest_pending_seconds',
    help: 'Seconds since the oldest address webhook event still pending was written (0: none pending).',
    registers,
    collect: guarded('the address webhook events', async (gauge: Gauge) => {
      gauge.set(await oldestPendingSubscriptionEventAge(db));
    }),
  });

  new Gauge({
    name: 'tokenproxy_funding_pool_outputs',
    help: 'Available funding pool outputs (one pays one transfer fee).',
    registers,
    collect: guarded('the funding pool', async (gauge: Gauge) => {
      gauge.set((await readFunding()).outputs);
    }),
  });
  new Gauge({
    name: 'tokenproxy_funding_pool_satoshis',
    help: 'Satoshis in available funding pool outputs.',
    registers,
    collect: guarded('the funding pool', async (gauge: Gauge) => {
      gauge.set(Number((await readFunding()).satoshis));
    }),
  });
  new Gauge({
    name: 'tokenproxy_funding_pool_low_water',
    help: 'The funding pool’s refill threshold (fundingPoolLowWater), outputs: below it the pool is low.',
    registers,
  }).set(sources.lowWater);

  // One read of the supply per scrape, shared by its two gauges: from the kept balances, so its
  // cost does not grow with the outputs (store/wallets/kept-supply.ts).
  const readSupply = oncePerScrape(async () => {
    const s = await keptSupply(db, sources.token);
    return {
      parts: { genesis: sources.genesisSupply, ...s },
      imbalance: sources.genesisSupply - (s.circulating + s.treasury + s.burned + s.seized),
    };
  });
  new Gauge({
    name: 'tokenproxy_supply_units',
    help: 'The supply by part (genesis, circulating, treasury, burned, seized), atomic units (a float: exact up to 2^53).',
    labelNames: ['part'],
    registers,
    collect: guarded('the supply', async (gauge: Gauge<'part'>) => {
      for (const [part, units] of Object.entries((await readSupply()).parts))
        gauge.set({ part }, Number(units));
    }),
  });
  new Gauge({
    name: 'tokenproxy_supply_imbalance_units',
    help: 'Genesis supply minus circulating, treasury and burned, atomic units: 0 when the supply balances.',
    registers,
    collect: guarded('the supply', async (gauge: Gauge) => {
      gauge.set(Number((await readSupply()).imbalance));
    }),
  });
}
