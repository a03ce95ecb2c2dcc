// Transaction history (spec 2.7, contract.md "Beyond the spec"): GET /v2/history/{address} and
// POST /v2/history answer what the reference client's `recentTxHistory` / `recentTxHistories`
// compute. The records are read exactly as POST /v1/sync serves them to the client for the same
// question (domain/history.ts says which selection), then the pure domain functions do the rest.
import type { FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import { isValidAddress } from '../../domain/address.js';
import { toJsonNumber } from '../../domain/amount.js';
import {
  groupHistories,
  type HistoryConfig,
  type HistoryParams,
  type HistoryQuery,
  type HistoryResponse,
  type HistorySyncRecord,
  historyFor,
  historyGroups,
  historySelection,
  type SyncSelection,
} from '../../domain/history.js';
import { type SyncRecord, syncForAddresses } from '../../store/feed/feed-queries.js';
import type { AppInstance } from '../app.js';
import { AppError } from '../app-error.js';
import { authTokenQuery, problemResponses } from '../schemas/common.js';
import { describeIssue, validationIssues } from '../validation.js';
import type { RouteDeps } from './route-deps.js';
import { anonymousCap } from './sync-stream.js';

const read = { scope: 'read' as const };

/** The most records one address may ask for (the bound POST /v1/sync puts on `limit`). */
export const MAX_HISTORY_LIMIT = 100_000;
/** Entries GET /v2/history/{address} answers when no limit is asked (the multi form's default too). */
export const DEFAULT_HISTORY_LIMIT = 100;

const FromScore = Type.Integer({
  minimum: 0,
  maximum: Number.MAX_SAFE_INTEGER,
  description:
    "Score read up to, excluded: asc answers scores above it, desc scores below it (0: from the newest). Pass the previous page's nextScore.",
});
const Limit = Type.Integer({ minimum: 1, maximum: MAX_HISTORY_LIMIT, description: 'Entries at most' });
/**
 * No default: the multi form groups an absent order apart from an explicit `asc`, as the client
 * does (a schema default would fill it in).
 */
const HistoryOrder = Type.Enum(['asc', 'desc'], { description: 'Order by score (absent: asc)' });
const AddressText = Type.String({ minLength: 1, maxLength: 128, description: 'Address' });

const HistoryItem = Type.Object(
  {
    address: AddressText,
    fromScore: Type.Optional(FromScore),
    limit: Type.Optional(Limit),
    order: Type.Optional(HistoryOrder),
  },
  { additionalProperties: false },
);

const Counterparty = Type.Object({
  address: Type.Optional(Type.String()),
  amount: Type.Integer({ description: 'Atomic units' }),
});

const TxHistory = Type.Object({
  txid: Type.String(),
  height: Type.Integer({ description: '0 when unconfirmed' }),
  status: Type.Enum(['confirmed', 'unconfirmed']),
  type: Type.Enum(['send', 'receive']),
  amount: Type.Integer({ description: 'Atomic units' }),
  counterparties: Type.Array(Counterparty),
  fee: Type.Integer({ description: 'Atomic units' }),
  score: Type.Integer(),
});

/** The History response (spec 2.7). */
export const HistorySchema = Type.Object(
  {
    address: Type.String(),
    history: Type.Array(TxHistory),
    nextScore: Type.Integer({ description: 'Score to page on' }),
  },
  { description: 'History response (spec 2.7)' },
);

type HistoryJson = Static<typeof HistorySchema>;

/** A History response on the wire: amounts and scores as exact JSON numbers, no undefined keys. */
export function historyJson(response: HistoryResponse): HistoryJson {
  return {
    address: response.address,
    history: response.history.map((entry) => ({
      txid: entry.txid,
      height: entry.height,
      status: entry.status,
      type: entry.type,
      amount: toJsonNumber(entry.amount),
      counterparties: entry.counterparties.map((c) =>
        c.address === undefined
          ? { amount: toJsonNumber(c.amount) }
          : { address: c.address, amount: toJsonNumber(c.amount) },
      ),
      fee: toJsonNumber(entry.fee),
      score: toJsonNumber(entry.score),
    })),
    nextScore: toJsonNumber(response.nextScore),
  };
}

const historyRecord = (r: SyncRecord): HistorySyncRecord => ({
  txid: r.txid,
  rawtx: r.rawTx,
  senders: r.senders,
  receivers: r.receivers,
  height: r.height,
  score: r.score,
});

function checkAddress(address: string): string {
  if (!isValidAddress(address)) throw new AppError('INVALID_ADDRESS', `invalid address: ${address}`);
  return address;
}

const PARAMETER_FIELD = /^\[\d+\]\.(fromScore|limit|order)$/;

/**
 * A body that failed its schema: a 400 INVALID_PARAMETER when the first issue is one entry's
 * fromScore, limit or order (a parameter out of range), else the frame's INVALID_REQUEST.
 */
function rethrowBodyError(request: FastifyRequest): void {
  const error = request.validationError as (Error & { validation?: unknown[] }) | undefined;
  if (error === undefined) return;
  const issues = validationIssues('body', error.validation ?? []);
  const first = issues[0];
  if (first !== undefined && PARAMETER_FIELD.test(first.name)) {
    throw new AppError('INVALID_PARAMETER', describeIssue(first), { invalidParams: issues });
  }
  throw error;
}

export function historyRoutes(deps: RouteDeps) {
  const { ctx } = deps;
  const config: HistoryConfig = { tokenId: ctx.token.tokenId, feeAddress: ctx.token.feeAddress };
  const select = async (addresses: readonly string[], selection: SyncSelection) =>
    (await syncForAddresses(ctx.db, { addresses, ...selection })).map(historyRecord);

  return (app: AppInstance) => {
    app.get(
      '/v2/history/:address',
      {
        config: read,
        schema: {
          summary: 'Transaction history of one address (what the client computes as recentTxHistory)',
          tags: ['history'],
          params: Type.Object({ address: AddressText }),
          querystring: Type.Object({
            ...authTokenQuery,
            from: Type.Optional(FromScore),
            limit: Type.Optional({
              ...Limit,
              description: `Entries at most (default ${DEFAULT_HISTORY_LIMIT}; an anonymous caller at most anonymousMaxRecords); page on with from = nextScore`,
            }),
            order: Type.Optional(HistoryOrder),
          }),
          response: { 200: HistorySchema, ...problemResponses(400) },
        },
      },
      async (request) => {
        const address = checkAddress(request.params.address);
        const { from, order } = request.query;
        // Bounded: a default, and an anonymous caller's cap (contract.md, Long answers).
        const limit = Math.min(
          request.query.limit ?? DEFAULT_HISTORY_LIMIT,
          anonymousCap(request, deps) ?? MAX_HISTORY_LIMIT,
        );
        const query: HistoryQuery = {
          ...(from === undefined ? {} : { fromScore: BigInt(from) }),
          limit,
          ...(order === undefined ? {} : { order }),
        };
        const records = await select([address], historySelection(query));
        return historyJson(historyFor(address, records, config, query));
      },
    );

    app.post(
      '/v2/history',
      {
        config: read,
        attachValidation: true,
        schema: {
          summary:
            'Transaction histories of several addresses (what the client computes as recentTxHistories)',
          description:
            'Answers grouped as the client groups them: by (fromScore, limit, order) in first-seen order.',
          tags: ['history'],
          body: Type.Array(HistoryItem, {
            minItems: 1,
            maxItems: deps.maxAddresses,
            description: `History queries (1 to ${deps.maxAddresses})`,
          }),
          querystring: Type.Object(authTokenQuery),
          response: { 200: Type.Array(HistorySchema), ...problemResponses(400) },
        },
      },
      async (request) => {
        rethrowBodyError(request);
        const params: HistoryParams[] = request.body.map((item) => ({
          address: checkAddress(item.address),
          ...(item.fromScore === undefined ? {} : { fromScore: BigInt(item.fromScore) }),
          ...(item.limit === undefined ? {} : { limit: item.limit }),
          ...(item.order === undefined ? {} : { order: item.order }),
        }));
        // The groups share one budget of records (one group per distinct fromScore, so up to
        // maxAddresses groups): an anonymous caller's cap, else MAX_HISTORY_LIMIT, what one
        // address may ask for (the answer is held whole). Each group reads at most what is left
        // of it, split among its addresses, and at least one record per address once it is spent.
        let budget = anonymousCap(request, deps) ?? MAX_HISTORY_LIMIT;
        const answers: HistoryJson[] = [];
        for (const group of historyGroups(params)) {
          const perAddress = Math.max(1, Math.floor(budget / new Set(group.addresses).size));
          const selection =
            group.selection.limit === 0 || group.selection.limit > perAddress
              ? { ...group.selection, limit: perAddress }
              : group.selection;
          const records = await select(group.addresses, selection);
          budget = Math.max(0, budget - records.length);
          for (const response of groupHistories(group, records, config)) answers.push(historyJson(response));
        }
        return answers;
      },
    );
  };
}
