// The operator's supply and funding routes (scope `admin`): burn out of the treasury or the
// fee address, the funding pool (address to pay, level), and the audit of the index against
// the transactions' raw bytes. The CLI (burn, fund, audit) is a thin shell over these.
import { Type } from 'typebox';
import { parseTokens } from '../../domain/amount.js';
import type { SupplySplit } from '../../domain/ledger-audit.js';
import { readSetting } from '../../store/settings.js';
import { auditLedger } from '../../usecases/audit-ledger.js';
import { type BurnKeys, burnTokens } from '../../usecases/burn-tokens.js';
import { RESERVE_SETTING, type ReserveOutput } from '../../usecases/funding-pool.js';
import type { AppInstance } from '../app.js';
import { authTokenQuery, problemResponses } from '../schemas/common.js';
import { amountJson } from './admin-routes.js';
import type { RouteDeps } from './route-deps.js';

export interface SupplyRouteDeps extends RouteDeps {
  readonly burnKeys: BurnKeys;
  /** Where the operator pays satoshis into the funding pool. */
  readonly fundingAddress: string;
  /** Below this many available outputs the pool is refilled from the reserve. */
  readonly poolLowWater: number;
}

const admin = { scope: 'admin' as const };
const query = Type.Object(authTokenQuery);

const BurnBody = Type.Object(
  {
    amount: Type.String({
      minLength: 1,
      maxLength: 40,
      description: 'Decimal token amount, e.g. "12.5" (at most 5 decimals)',
    }),
    from: Type.Optional(Type.Enum(['mint', 'fee'], { description: 'Address burned from (default mint)' })),
  },
  { additionalProperties: false },
);

function splitJson(split: SupplySplit) {
  return {
    circulating: amountJson(split.circulating),
    treasury: amountJson(split.treasury),
    burned: amountJson(split.burned),
    redeemed: amountJson(split.redeemed),
  };
}

export function supplyRoutes(deps: SupplyRouteDeps) {
  const { ctx } = deps;
  return async (app: AppInstance): Promise<void> => {
    app.post(
      '/v2/admin/burn',
      {
        config: admin,
        schema: {
          summary: 'Burn tokens out of the treasury or the fee address',
          tags: ['admin'],
          body: BurnBody,
          querystring: query,
          response: problemResponses(400),
        },
      },
      async (request) => {
        const amount = parseTokens(request.body.amount);
        const result = await burnTokens(ctx, deps.burnKeys, { from: request.body.from ?? 'mint', amount });
        return { ...result, amount: amountJson(amount) };
      },
    );

    app.get(
      '/v2/admin/funding',
      {
        config: admin,
        schema: {
          summary: 'The funding pool: address to pay and level',
          tags: ['admin'],
          querystring: query,
        },
      },
      async () => {
        const [rows, reserve] = await Promise.all([
          ctx.db.query<{ state: string; n: string; sats: string }>(
            'SELECT state, count(*) AS n, coalesce(sum(satoshis), 0)::text AS sats FROM funding_outputs GROUP BY state',
          ),
          readSetting<ReserveOutput>(ctx.db, RESERVE_SETTING),
        ]);
        const of = (state: string) => rows.find((r) => r.state === state);
        const available = Number(of('available')?.n ?? 0);
        return {
          address: deps.fundingAddress,
          pool: {
            available,
            availableSatoshis: Number(of('available')?.sats ?? 0),
            reserved: Number(of('reserved')?.n ?? 0),
            lowWater: deps.poolLowWater,
            low: available < deps.poolLowWater,
          },
          reserve:
            reserve === null
              ? null
              : { outpoint: `${reserve.txid}_${reserve.vout}`, satoshis: Number(reserve.satoshis) },
        };
      },
    );

    app.get(
      '/v2/admin/audit',
      {
        config: admin,
        schema: {
          summary: 'Recompute balances and supply from the transactions and compare with the index',
          tags: ['admin'],
          querystring: query,
        },
      },
      async () => {
        const report = await auditLedger(ctx.db, ctx.token);
        return {
          ok: report.ok,
          transactions: report.transactions,
          outputs: report.outputs,
          supply: { index: splitJson(report.supply.index), recomputed: splitJson(report.supply.recomputed) },
          balanceDifferences: report.balanceDifferences.map((d) => ({
            address: d.address,
            index: amountJson(d.index),
            recomputed: amountJson(d.recomputed),
          })),
          outputDifferences: report.outputDifferences,
        };
      },
    );
  };
}
