// The spec's read endpoints: config, the change feed (sync), unspent outputs, balances and
// raw transactions; and one token output by outpoint (the Go client's GetTxo).
import { Type } from 'typebox';
import { precised, toJsonNumber } from '../../domain/amount.js';
import { MAX_VOUT } from '../../domain/index-bounds.js';
import { pauseState } from '../../store/controls/pause-store.js';
import { rawTransaction, syncFrom } from '../../store/feed/feed-queries.js';
import { balanceIn, cachedBalanceReader } from '../../store/wallets/balance-cache.js';
import { batchedBalanceReader, batchedUnspentReader } from '../../store/wallets/read-batches.js';
import { tokenOutputAt } from '../../store/wallets/wallet-queries.js';
import type { AppInstance } from '../app.js';
import { AppError } from '../app-error.js';
import { authTokenQuery, Order, problemResponses, SafeInteger } from '../schemas/common.js';
import { okList, okRef } from '../schemas/responses.js';
import { addressListSchema, checkAddresses } from './address-list.js';
import type { RouteDeps } from './route-deps.js';
import { anonymousCap, syncStream } from './sync-stream.js';
import { base64, configJson, syncRecordJson, utxoJson } from './wire.js';

/** How deep into an address set's outputs a UTXO page may start: each page reads all before it. */
export const MAX_UTXO_DEPTH = 100_000;

const read = { scope: 'read' as const };

const BalanceList = Type.Array(
  Type.Object({
    address: Type.String(),
    amt: Type.Integer({ description: 'Balance, atomic units' }),
    precised: Type.Number({ description: 'Balance in tokens (amt / 10^decimals)' }),
  }),
  {
    description: 'One balance per address asked, in the order asked',
    examples: [[{ address: '1AlicexxxxxxxxxxxxxxxxxxxxxxxxxxxX', amt: 1250000, precised: 12.5 }]],
  },
);
const V1_UTXO_CAP = 10_000;
/**
 * How long /v1/config's `paused` may be stale, ms: it informs wallets; the pause itself is
 * enforced by every submission batch's look-ups, not by this read.
 */
export const CONFIG_PAUSE_STALE_MS = 1000;
const OUTPOINT = /^([0-9a-fA-F]{64})_(0|[1-9]\d{0,9})$/;

export function readRoutes(deps: RouteDeps) {
  const { ctx } = deps;
  const addresses = addressListSchema(deps.maxAddresses);
  const balances = batchedBalanceReader(cachedBalanceReader(ctx.db));
  const unspentOutputs = batchedUnspentReader(ctx.db);
  let pause: { paused: boolean; at: number } | null = null;
  const paused = async (): Promise<boolean> => {
    const now = Date.now();
    if (pause === null || now - pause.at > CONFIG_PAUSE_STALE_MS)
      pause = { paused: (await pauseState(ctx.db)).paused, at: now };
    return pause.paused;
  };
  return (app: AppInstance) => {
    app.get(
      '/v1/config',
      {
        config: read,
        schema: {
          querystring: Type.Object(authTokenQuery),
          response: { 200: okRef('TokenConfig', 'The token') },
        },
      },
      async () => ({ ...configJson(ctx.token), paused: await paused() }),
    );

    app.get(
      '/v1/sync',
      {
        config: read,
        schema: {
          querystring: Type.Object({
            ...authTokenQuery,
            from: Type.Optional({ ...SafeInteger, description: 'Lowest score answered (included)' }),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 5000 })),
          }),
          response: { 200: okList('SyncRecord', 'Records by score, ascending'), ...problemResponses(400) },
        },
      },
      async (request) => {
        const { from = 0, limit = 1000 } = request.query;
        const records = await syncFrom(ctx.db, { from: BigInt(from), limit });
        return records.map(syncRecordJson);
      },
    );

    app.post(
      '/v1/sync',
      {
        config: read,
        schema: {
          body: addresses,
          querystring: Type.Object({
            ...authTokenQuery,
            from: Type.Optional({
              ...SafeInteger,
              description:
                "Score read up to, excluded: asc answers scores above it, desc scores below it (0: from the start). Pass the last score of the previous page (the client's nextScore).",
            }),
            limit: Type.Optional(
              Type.Integer({
                minimum: 0,
                maximum: 100_000,
                description:
                  'Per address; 0: all (streamed). An anonymous caller is answered at most anonymousMaxRecords records in all (contract.md, Long answers).',
              }),
            ),
            order: Type.Optional(Order),
          }),
          response: {
            200: okList('SyncRecord', 'Records concerning the addresses, by score'),
            ...problemResponses(400),
          },
        },
      },
      async (request, reply) => {
        const { from = 0, limit = 0, order = 'asc' } = request.query;
        const list = checkAddresses(request.body);
        const cap = anonymousCap(request, deps);
        // An anonymous caller's per-address limit is cut so that all its addresses fit its cap.
        const perAddress =
          cap === null || limit === 0 || limit * list.length <= cap
            ? limit
            : Math.max(1, Math.floor(cap / list.length));
        // Streamed in pages whatever the limit (sync-stream.ts): memory holds one page.
        reply.type('application/json; charset=utf-8');
        const stream = syncStream(ctx.db, {
          addresses: list,
          from: BigInt(from),
          order,
          perAddress,
          maxRecords: cap,
        });
        // A stream is sent as it is (the response schema describes what it writes).
        return reply.send(stream as unknown as never);
      },
    );

    app.post(
      '/v2/utxos',
      {
        config: read,
        schema: {
          body: addresses,
          querystring: Type.Object({
            ...authTokenQuery,
            page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
            size: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
            order: Type.Optional(Order),
          }),
          response: {
            200: okList('Utxo', 'Unspent token outputs of the addresses'),
            ...problemResponses(400),
          },
        },
      },
      async (request) => {
        const { page = 1, size = 10, order = 'asc' } = request.query;
        // A page is read from the first output on: a deep one reads every output before it.
        if ((page - 1) * size >= MAX_UTXO_DEPTH)
          throw new AppError(
            'INVALID_PARAMETER',
            `query parameter 'page' reaches past the first ${MAX_UTXO_DEPTH} outputs (page ${page} of size ${size})`,
          );
        const outputs = await unspentOutputs({
          addresses: checkAddresses(request.body),
          page,
          size,
          order,
        });
        return outputs.map((o) => utxoJson(o, ctx.token));
      },
    );

    app.post(
      '/v1/utxos',
      {
        config: { ...read, deprecatedBy: '/v2/utxos' },
        schema: {
          body: addresses,
          querystring: Type.Object(authTokenQuery),
          response: {
            200: okList('Utxo', 'Unspent token outputs (at most 10,000)'),
            ...problemResponses(400),
          },
        },
      },
      async (request) => {
        const query = {
          addresses: checkAddresses(request.body),
          page: 1,
          size: V1_UTXO_CAP,
          order: 'asc' as const,
        };
        return (await unspentOutputs(query)).map((o) => utxoJson(o, ctx.token));
      },
    );

    app.post(
      '/v2/balance',
      {
        config: read,
        schema: {
          body: addresses,
          querystring: Type.Object(authTokenQuery),
          response: { 200: BalanceList, ...problemResponses(400) },
        },
      },
      async (request) => {
        const list = checkAddresses(request.body);
        const amounts = await balances(list);
        return list.map((address) => {
          const amt = balanceIn(amounts, address);
          return { address, amt: toJsonNumber(amt), precised: precised(amt) };
        });
      },
    );

    // The Go client's GetTxo (go-mnee-1sat-sdk txos.go): one output in the MneeTxo shape of
    // the UTXO lists, spent or not; 404 `record not found` when there is no token output.
    app.get(
      '/v2/txos/:outpoint',
      {
        config: read,
        schema: {
          params: Type.Object({ outpoint: Type.String({ description: '<txid>_<vout>' }) }),
          querystring: Type.Object(authTokenQuery),
          response: { 200: okRef('Utxo', 'The token output, spent or not'), ...problemResponses(400, 404) },
        },
      },
      async (request) => {
        const { outpoint } = request.params;
        const match = OUTPOINT.exec(outpoint);
        const vout = Number(match?.[2]);
        if (match === null || vout > MAX_VOUT)
          throw new AppError('INVALID_PARAMETER', `invalid outpoint: ${outpoint}`);
        const output = await tokenOutputAt(ctx.db, match[1]!.toLowerCase(), vout);
        if (output === null) throw new AppError('NOT_FOUND', 'record not found');
        return utxoJson(output, ctx.token);
      },
    );

    app.get(
      '/v1/tx/:txid',
      {
        config: read,
        schema: {
          params: Type.Object({ txid: Type.String({ description: 'Transaction ID (64 hex digits)' }) }),
          querystring: Type.Object(authTokenQuery),
          response: { 200: okRef('RawTx', 'The raw transaction'), ...problemResponses(400, 404) },
        },
      },
      async (request) => {
        const { txid } = request.params;
        if (!/^[0-9a-fA-F]{64}$/.test(txid))
          throw new AppError('INVALID_TXID', `invalid transaction ID: ${txid}`);
        const raw = await rawTransaction(ctx.db, txid.toLowerCase());
        if (raw === null) throw new AppError('NOT_FOUND', `transaction ${txid} not found`);
        return { rawtx: base64(raw) };
      },
    );
  };
}
