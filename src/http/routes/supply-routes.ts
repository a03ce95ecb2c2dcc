// The operator's supply and funding routes (scope `admin`): burn out of the treasury or the
// fee address, the funding pool (address to pay, level, reserve), the operator's payments into
// it, and the audit of the index against the transactions' raw bytes. The CLI (burn, fund,
// audit) is a thin shell over these.
import { Type } from 'typebox';
import { pubKeyHashOf } from '../../domain/address.js';
import { parseTokens, toJsonNumber } from '../../domain/amount.js';
import type { SupplySplit } from '../../domain/ledger-audit.js';
import { fromHex } from '../../domain/script-chunks.js';
import { TICKET_STATUSES } from '../../domain/ticket-state.js';
import { buildP2pkhScript } from '../../domain/token-script.js';
import { fundingPoolLevel } from '../../store/funding/funding-pool.js';
import { availableReserve, type ReserveOutput } from '../../store/funding/funding-reserve.js';
import { recordFundingPayment } from '../../usecases/funding/record-funding-payment.js';
import { auditLedger } from '../../usecases/supply/audit-ledger.js';
import { type BurnKeys, burnTokens } from '../../usecases/supply/burn-tokens.js';
import type { AppInstance } from '../app.js';
import { idempotencyHooks, preparedUnder } from '../plugins/idempotency.js';
import { authTokenQuery, problemResponses, Txid } from '../schemas/common.js';
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

const PaymentBody = Type.Object(
  {
    txid: Txid,
    rawtx: Type.Optional(
      Type.String({
        pattern: '^([0-9a-fA-F]{2})+$',
        maxLength: 2_000_000,
        description:
          'The raw transaction in hex, for a ledger that serves no raw transactions (ARC); checked against txid and the ledger',
      }),
    ),
  },
  { additionalProperties: false },
);

const Amount = Type.Object({ atomic: Type.Integer({ minimum: 0 }), tokens: Type.String() });
const Reserve = Type.Object({ outpoint: Type.String(), satoshis: Type.Integer({ minimum: 0 }) });
const Split = Type.Object({
  circulating: Amount,
  treasury: Amount,
  burned: Amount,
  redeemed: Amount,
  seized: Type.Optional(Amount),
});
const Burned = Type.Object({
  ticketId: Type.String(),
  txid: Type.String(),
  from: Type.String(),
  amount: Amount,
});
const Funding = Type.Object({
  address: Type.String({ description: 'Pay satoshis here to fund the pool' }),
  pool: Type.Object({
    available: Type.Integer(),
    availableSatoshis: Type.Integer(),
    reserved: Type.Integer(),
    lowWater: Type.Integer(),
    low: Type.Boolean(),
  }),
  reserve: Type.Union([Reserve, Type.Null()], { description: 'The largest reserve output' }),
  reserves: Type.Array(Reserve),
  reserveSatoshis: Type.Integer(),
});
const Payment = Type.Object({
  txid: Type.String(),
  outputs: Type.Array(Reserve),
  recorded: Type.Array(Reserve),
  alreadyRecorded: Type.Boolean(),
});
const Audit = Type.Object({
  ok: Type.Boolean(),
  transactions: Type.Integer(),
  outputs: Type.Integer(),
  unreadableTransactions: Type.Array(Type.Object({ txid: Type.String(), reason: Type.String() }), {
    description:
      'Stored transactions whose raw bytes are no whole transaction (a corrupted record): recomputed as creating and spending nothing.',
  }),
  supply: Type.Object({ index: Split, recomputed: Split }),
  balanceDifferences: Type.Array(Type.Object({ address: Type.String(), index: Amount, recomputed: Amount })),
  outputDifferences: Type.Array(
    Type.Object({
      outpoint: Type.String(),
      field: Type.Enum(['presence', 'owner', 'amount', 'op', 'spent']),
      index: Type.String(),
      recomputed: Type.String(),
    }),
  ),
  conservationDifference: Type.Union([Type.Object({ genesis: Amount, total: Amount }), Type.Null()], {
    description:
      "The recomputed supply's total (circulating, treasury, burned, redeemed, seized) when it is not what the deploy minted: a live transaction spends what no live transaction created. Null when they agree, or when the deploy is not among the transactions.",
  }),
  keptBalanceDifferences: Type.Array(Type.Object({ address: Type.String(), kept: Amount, summed: Amount }), {
    description:
      'Balances kept per address (what POST /v2/balance answers) that differ from the sum of the index outputs.',
  }),
  keptTotalDifference: Type.Union([Type.Object({ kept: Amount, summed: Amount }), Type.Null()], {
    description:
      'The kept total of all balances (what the supply figures split) when it differs from the sum of the kept balances; null when they agree.',
  }),
  ticketCountDifferences: Type.Array(
    Type.Object({
      status: Type.Enum([...TICKET_STATUSES]),
      kept: Type.Integer(),
      counted: Type.Integer(),
    }),
    {
      description:
        'Statuses whose kept ticket count (what the tokenproxy_tickets gauge and the status answer) differs from a count of the tickets.',
    },
  ),
  eventCountDifferences: Type.Array(
    Type.Object({
      state: Type.Enum(['pending', 'delivered', 'failed', 'dead']),
      kept: Type.Integer(),
      counted: Type.Integer(),
    }),
    {
      description:
        'States whose kept callback event count (what the tokenproxy_outbox_events gauge answers) differs from a count of the events.',
    },
  ),
  failedOnLedger: Type.Array(
    Type.Object({
      txid: Type.String(),
      status: Type.Enum(['mempool', 'mined']),
      height: Type.Union([Type.Integer(), Type.Null()]),
    }),
    { description: 'Failed transactions the ledger holds after all (their inputs were released).' },
  ),
});

function reserveJson(o: ReserveOutput) {
  return { outpoint: `${o.txid}_${o.vout}`, satoshis: toJsonNumber(o.satoshis) };
}

function splitJson(split: SupplySplit) {
  return {
    circulating: amountJson(split.circulating),
    treasury: amountJson(split.treasury),
    burned: amountJson(split.burned),
    redeemed: amountJson(split.redeemed),
    seized: amountJson(split.seized),
  };
}

export function supplyRoutes(deps: SupplyRouteDeps) {
  const { ctx } = deps;
  // Writes that move value honour Idempotency-Key as transfers do (contract.md, Transfer).
  const idempotent = idempotencyHooks(ctx.db, ctx.now);
  return async (app: AppInstance): Promise<void> => {
    app.post(
      '/v2/admin/burn',
      {
        config: { scope: 'burn' },
        ...idempotent,
        schema: {
          summary: 'Burn tokens out of the treasury or the fee address',
          tags: ['admin'],
          body: BurnBody,
          querystring: query,
          response: { 200: Burned, ...problemResponses(400) },
        },
      },
      async (request) => {
        const amount = parseTokens(request.body.amount);
        const result = await burnTokens(
          ctx,
          deps.burnKeys,
          { from: request.body.from ?? 'mint', amount },
          preparedUnder(ctx.db, request, ctx.now),
        );
        return { ...result, amount: amountJson(amount) };
      },
    );

    app.get(
      '/v2/admin/funding',
      {
        config: { scope: 'audit' },
        schema: {
          summary: 'The funding pool: address to pay and level',
          tags: ['admin'],
          querystring: query,
          response: { 200: Funding },
        },
      },
      async () => {
        const [level, reserve] = await Promise.all([fundingPoolLevel(ctx.db), availableReserve(ctx.db)]);
        const { available } = level;
        return {
          address: deps.fundingAddress,
          pool: {
            available,
            availableSatoshis: Number(level.availableSatoshis),
            reserved: level.reserved,
            lowWater: deps.poolLowWater,
            low: available < deps.poolLowWater,
          },
          // The largest reserve output (the next split's first input), and all of them.
          reserve: reserve[0] === undefined ? null : reserveJson(reserve[0]),
          reserves: reserve.map(reserveJson),
          reserveSatoshis: toJsonNumber(reserve.reduce((sum, o) => sum + o.satoshis, 0n)),
        };
      },
    );

    const fundingPkh = pubKeyHashOf(deps.fundingAddress);
    if (fundingPkh === null) throw new Error(`the funding address ${deps.fundingAddress} is not P2PKH`);
    const fundingScript = buildP2pkhScript(fundingPkh);
    app.post(
      '/v2/admin/funding/payments',
      {
        config: admin,
        ...idempotent,
        schema: {
          summary: 'Record a payment to the funding address: its outputs become reserve for the pool',
          tags: ['admin'],
          body: PaymentBody,
          querystring: query,
          response: { 200: Payment, ...problemResponses(400, 404, 422, 503) },
        },
      },
      async (request) => {
        const txid = request.body.txid.toLowerCase();
        const raw = request.body.rawtx === undefined ? undefined : fromHex(request.body.rawtx);
        const result = await recordFundingPayment(
          { db: ctx.db, ledger: ctx.ledger, fundingScript, now: ctx.now },
          txid,
          raw,
        );
        request.log.info(
          { txid, outputs: result.outputs.length, recorded: result.recorded.length },
          'funding payment recorded',
        );
        return {
          txid,
          outputs: result.outputs.map(reserveJson),
          recorded: result.recorded.map(reserveJson),
          alreadyRecorded: result.recorded.length === 0,
        };
      },
    );

    app.get(
      '/v2/admin/audit',
      {
        config: { scope: 'audit' },
        schema: {
          summary: 'Recompute balances and supply from the transactions and compare with the index',
          tags: ['admin'],
          querystring: query,
          response: { 200: Audit },
        },
      },
      async () => {
        const report = await auditLedger(ctx.db, ctx.token, ctx.ledger);
        return {
          ok: report.ok,
          transactions: report.transactions,
          outputs: report.outputs,
          unreadableTransactions: report.unreadableTransactions.map((u) => ({ ...u })),
          supply: { index: splitJson(report.supply.index), recomputed: splitJson(report.supply.recomputed) },
          balanceDifferences: report.balanceDifferences.map((d) => ({
            address: d.address,
            index: amountJson(d.index),
            recomputed: amountJson(d.recomputed),
          })),
          outputDifferences: report.outputDifferences.map((d) => ({ ...d })),
          conservationDifference:
            report.conservationDifference === null
              ? null
              : {
                  genesis: amountJson(report.conservationDifference.genesis),
                  total: amountJson(report.conservationDifference.total),
                },
          keptBalanceDifferences: report.keptBalanceDifferences.map((d) => ({
            address: d.address,
            kept: amountJson(d.kept),
            summed: amountJson(d.summed),
          })),
          keptTotalDifference:
            report.keptTotalDifference === null
              ? null
              : {
                  kept: amountJson(report.keptTotalDifference.kept),
                  summed: amountJson(report.keptTotalDifference.summed),
                },
          ticketCountDifferences: report.ticketCountDifferences.map((d) => ({ ...d })),
          eventCountDifferences: report.eventCountDifferences.map((d) => ({ ...d })),
          failedOnLedger: report.failedOnLedger.map((d) => ({ ...d })),
        };
      },
    );
  };
}
