// The operator console's read models (scope `admin`), what the page at /console shows:
// supply and its history, tickets over time and the failed ones, the funding pool's outlook,
// callback deliveries, the chain. The search box has its own file (console-search-routes.ts).
import { Type } from 'typebox';
import { toJsonNumber } from '../../domain/amount.js';
import { fundingOutlook, typicalTransferFee } from '../../domain/funding-outlook.js';
import type { MinedBlock } from '../../ledger/devnet/devnet-types.js';
import { deliveryStats } from '../../store/callbacks/delivery-stats.js';
import { fundingPoolLevel } from '../../store/funding/funding-pool.js';
import { availableReserve } from '../../store/funding/funding-reserve.js';
import { deliveryTrend, fundingTrend } from '../../store/operator/console-trends.js';
import { supplyHistory } from '../../store/operator/supply-history.js';
import { ticketCounts } from '../../store/tickets/ticket-counts.js';
import { failedTickets, ticketTimeline } from '../../store/tickets/ticket-timeline.js';
import { keptSupply } from '../../store/wallets/kept-supply.js';
import { redeemedAmount } from '../../store/wallets/wallet-queries.js';
import { defaultDenominations } from '../../usecases/funding/pool-refill.js';
import type { AppInstance } from '../app.js';
import { AppError } from '../app-error.js';
import { authTokenQuery } from '../schemas/common.js';
import {
  ConsoleChain,
  ConsoleDeliveries,
  ConsoleFunding,
  ConsoleSupply,
  ConsoleTickets,
} from '../schemas/console-schemas.js';
import { amountJson } from './admin-routes.js';
import { askTip } from './chain-tip.js';
import type { RouteDeps } from './route-deps.js';

export interface ConsoleRouteDeps extends RouteDeps {
  /** Atomic units deployed. */
  readonly genesisSupply: bigint;
  readonly fundingAddress: string;
  readonly poolLowWater: number;
  /** The devnet (its last blocks are listed), or null when the ledger is ARC. */
  readonly devnet: {
    tip(): Promise<{ readonly height: number }>;
    block(height: number): MinedBlock | undefined;
  } | null;
}

const tags = ['admin', 'console'];

/** The devnet's last blocks, newest first: read by height, since older blocks live on disk. */
async function lastBlocks(devnet: NonNullable<ConsoleRouteDeps['devnet']>): Promise<MinedBlock[]> {
  const { height } = await devnet.tip();
  const out: MinedBlock[] = [];
  for (let h = height; h >= 0 && out.length < LAST_BLOCKS; h--) {
    const block = devnet.block(h);
    if (block !== undefined) out.push(block);
  }
  return out;
}
const WEEK_SECONDS = 7 * 24 * 3600;
const DAY_MS = 24 * 3600_000;
const LAST_BLOCKS = 10;
const FAILED_SHOWN = 20;

const windowQuery = Type.Object({
  window: Type.Optional(
    Type.Integer({
      minimum: 60,
      maximum: 366 * 24 * 3600,
      default: WEEK_SECONDS,
      description: 'Seconds of history to chart (default a week; shorter when the history is)',
    }),
  ),
  ...authTokenQuery,
});
const query = Type.Object(authTokenQuery);

export function consoleRoutes(deps: ConsoleRouteDeps) {
  const { ctx } = deps;
  return (app: AppInstance) => {
    app.get(
      '/v2/admin/console/supply',
      {
        config: { scope: 'audit' },
        schema: {
          summary: 'Supply now (genesis, circulating, treasury, burned, redeemed) and its history',
          tags,
          querystring: windowQuery,
          response: { 200: ConsoleSupply },
        },
      },
      async (request) => {
        const [now, history, redeemed] = await Promise.all([
          keptSupply(ctx.db, ctx.token),
          supplyHistory(ctx.db, ctx.token, ctx.now(), request.query.window ?? WEEK_SECONDS),
          redeemedAmount(ctx.db, ctx.token.burnAddress),
        ]);
        if (now.circulating + now.treasury + now.burned + now.seized !== deps.genesisSupply) {
          throw new AppError('INTERNAL', 'supply does not balance: see GET /v2/admin/status');
        }
        return {
          genesis: amountJson(deps.genesisSupply),
          circulating: amountJson(now.circulating),
          treasury: amountJson(now.treasury),
          burned: amountJson(now.burned),
          redeemed: amountJson(redeemed),
          history: {
            bucketSeconds: history.buckets.width,
            points: history.points.map((p) => ({
              at: p.at,
              circulating: amountJson(p.circulating),
              treasury: amountJson(p.treasury),
              burned: amountJson(p.burned),
            })),
          },
        };
      },
    );

    app.get(
      '/v2/admin/console/tickets',
      {
        config: { scope: 'audit' },
        schema: {
          summary: 'Tickets by status, created per time bucket, and the latest failed ones',
          tags,
          querystring: windowQuery,
          response: { 200: ConsoleTickets },
        },
      },
      async (request) => {
        const [counts, timeline, failed] = await Promise.all([
          ticketCounts(ctx.db),
          ticketTimeline(ctx.db, ctx.now(), request.query.window ?? WEEK_SECONDS),
          failedTickets(ctx.db, FAILED_SHOWN),
        ]);
        return {
          counts,
          bucketSeconds: timeline.buckets.width,
          timeline: timeline.points,
          failed: failed.map((t) => ({
            id: t.id,
            txid: t.txid,
            errors: t.errors,
            createdAt: t.createdAt.toISOString(),
            updatedAt: t.updatedAt.toISOString(),
          })),
        };
      },
    );

    app.get(
      '/v2/admin/console/funding',
      {
        config: { scope: 'audit' },
        schema: {
          summary:
            'The funding pool: outputs, satoshis, transfers left at the current fee, warning level, available outputs over time',
          tags,
          querystring: windowQuery,
          response: { 200: ConsoleFunding },
        },
      },
      async (request) => {
        const rate = await ctx.feeRate();
        const fee = typicalTransferFee(rate);
        const [level, reserve, trend] = await Promise.all([
          fundingPoolLevel(ctx.db, fee),
          availableReserve(ctx.db),
          fundingTrend(ctx.db, ctx.now(), request.query.window ?? WEEK_SECONDS),
        ]);
        const { available, usable } = level;
        const reserveSatoshis = reserve.reduce((sum, o) => sum + o.satoshis, 0n);
        const outlook = fundingOutlook({
          usableOutputs: usable,
          availableOutputs: available,
          reserveSatoshis,
          smallestDenomination: defaultDenominations(rate)[0]?.satoshis ?? 0n,
          lowWater: deps.poolLowWater,
        });
        return {
          address: deps.fundingAddress,
          outputs: { available, usable, reserved: level.reserved },
          satoshis: {
            available: toJsonNumber(level.availableSatoshis),
            reserve: toJsonNumber(reserveSatoshis),
          },
          feeRate: { satoshisPerKb: toJsonNumber(rate), typicalTransferFee: toJsonNumber(fee) },
          transfersLeft: outlook.transfersLeft,
          fromReserve: outlook.fromReserve,
          lowWater: deps.poolLowWater,
          level: outlook.level,
          history: { bucketSeconds: trend.buckets.width, points: trend.points.map((p) => ({ ...p })) },
        };
      },
    );

    app.get(
      '/v2/admin/console/deliveries',
      {
        config: { scope: 'audit' },
        schema: {
          summary:
            'Callback deliveries of the last 24 hours: success rate, latency, failing receivers, attempts over time',
          tags,
          querystring: query,
          response: { 200: ConsoleDeliveries },
        },
      },
      async () => {
        const since = new Date(ctx.now().getTime() - DAY_MS);
        const [stats, trend] = await Promise.all([
          deliveryStats(ctx.db, since),
          deliveryTrend(ctx.db, ctx.now(), DAY_MS / 1000),
        ]);
        return {
          since: since.toISOString(),
          attempts: stats.attempts,
          succeeded: stats.succeeded,
          successRate: stats.attempts === 0 ? null : stats.succeeded / stats.attempts,
          latencyMs: stats.latency,
          events: stats.events,
          failingReceivers: stats.failingReceivers.map((r) => ({ ...r, lastAt: r.lastAt.toISOString() })),
          history: { bucketSeconds: trend.buckets.width, points: trend.points.map((p) => ({ ...p })) },
        };
      },
    );

    app.get(
      '/v2/admin/console/chain',
      {
        config: { scope: 'audit' },
        schema: {
          summary: 'The chain tip and, on the devnet, the last blocks',
          tags,
          querystring: query,
          response: { 200: ConsoleChain },
        },
      },
      async () => {
        const asked = await askTip(ctx.ledger);
        const blocks = deps.devnet === null ? [] : await lastBlocks(deps.devnet);
        return {
          ledger: deps.devnet === null ? ('arc' as const) : ('devnet' as const),
          canMine: deps.devnet !== null,
          ...asked,
          blocks: blocks.map((b) => ({
            height: b.height,
            hash: b.hash,
            time: b.time,
            transactions: b.txids.length,
          })),
        };
      },
    );
  };
}
