// Transaction parsing (spec 2.7, contract.md "Beyond the spec"): GET /v2/parse/{txid} and
// POST /v2/parse answer what the reference client's `parseTx` / `parseTxFromRawTx` compute, on
// every field but `environment` (the service's own). The transaction and its inputs' sources
// are the transactions GET /v1/tx serves (an input whose source it does not serve is unknown,
// as it is to the client); the pure domain function does the rest.
import { type Static, Type } from 'typebox';
import { toJsonNumber } from '../../domain/amount.js';
import type { ClientTokenConfig } from '../../domain/client-script-reading.js';
import type { AddressAmount, ParseResponse, TokenData } from '../../domain/parse-response.js';
import { type SourceOutputs, sourceOutputsFrom, sourceTxidsOf } from '../../domain/parse-source-outputs.js';
import { parseTransaction } from '../../domain/parse-tx.js';
import { toHex } from '../../domain/script-chunks.js';
import { rawTransaction, rawTransactions } from '../../store/feed/feed-queries.js';
import type { AppInstance } from '../app.js';
import { AppError } from '../app-error.js';
import { authTokenQuery, problemResponses } from '../schemas/common.js';
import type { RouteDeps } from './route-deps.js';

const read = { scope: 'read' as const };

const HEX = /^(?:[0-9a-fA-F]{2})+$/;
const TXID = /^[0-9a-fA-F]{64}$/;

const IncludeRaw = Type.Boolean({ description: 'Add the extended `raw` part', default: false });
/** An amount; null where the client's parseInt reads the inscription's `amt` as NaN. */
const Amount = Type.Union([Type.Integer(), Type.Null()], { description: 'Atomic units' });
const AddressAmountSchema = Type.Object({ address: Type.String(), amount: Amount });
const TokenDataSchema = Type.Object({ amount: Amount });

const RawSchema = Type.Object({
  txHex: Type.String(),
  inputs: Type.Array(
    Type.Object({
      txid: Type.String(),
      vout: Type.Integer(),
      scriptSig: Type.String(),
      sequence: Type.Integer(),
      address: Type.Optional(Type.String()),
      satoshis: Type.Integer(),
      tokenData: Type.Optional(TokenDataSchema),
    }),
  ),
  outputs: Type.Array(
    Type.Object({
      value: Type.Integer(),
      scriptPubKey: Type.String(),
      address: Type.Optional(Type.String()),
      tokenData: Type.Optional(TokenDataSchema),
    }),
  ),
  version: Type.Integer(),
  lockTime: Type.Integer(),
  size: Type.Integer({ description: 'Bytes' }),
  hash: Type.String({ description: 'The transaction ID' }),
});

/** The Parse response (spec 2.7). */
export const ParseSchema = Type.Object(
  {
    txid: Type.String(),
    environment: Type.Enum(['production', 'sandbox']),
    type: Type.Enum(['transfer', 'burn', 'deploy', 'mint', 'redeem']),
    inputs: Type.Array(AddressAmountSchema),
    outputs: Type.Array(AddressAmountSchema),
    isValid: Type.Boolean(),
    inputTotal: Type.String({ description: 'Atomic units, decimal string' }),
    outputTotal: Type.String({ description: 'Atomic units, decimal string' }),
    raw: Type.Optional(RawSchema),
  },
  { description: 'Parse response (spec 2.7)' },
);

type ParseJson = Static<typeof ParseSchema>;

const amountJson = (amount: bigint | null) => (amount === null ? null : toJsonNumber(amount));
const listJson = (list: readonly AddressAmount[]) =>
  list.map((e) => ({ address: e.address, amount: amountJson(e.amount) }));
const withOptional = <K extends string, V>(key: K, value: V | undefined) =>
  (value === undefined ? {} : { [key]: value }) as Partial<Record<K, V>>;
const tokenDataJson = (t: TokenData | undefined) =>
  t === undefined ? undefined : { amount: amountJson(t.amount) };

/** A Parse response on the wire: amounts as exact JSON numbers, totals as strings, no undefined keys. */
export function parseJson(response: ParseResponse): ParseJson {
  const json: ParseJson = {
    txid: response.txid,
    environment: response.environment,
    type: response.type,
    inputs: listJson(response.inputs),
    outputs: listJson(response.outputs),
    isValid: response.isValid,
    inputTotal: response.inputTotal,
    outputTotal: response.outputTotal,
  };
  const { raw } = response;
  if (raw === undefined) return json;
  return {
    ...json,
    raw: {
      txHex: raw.txHex,
      inputs: raw.inputs.map((input) => ({
        txid: input.txid,
        vout: input.vout,
        scriptSig: input.scriptSig,
        sequence: input.sequence,
        ...withOptional('address', input.address),
        satoshis: toJsonNumber(input.satoshis),
        ...withOptional('tokenData', tokenDataJson(input.tokenData)),
      })),
      outputs: raw.outputs.map((output) => ({
        value: toJsonNumber(output.value),
        scriptPubKey: output.scriptPubKey,
        ...withOptional('address', output.address),
        ...withOptional('tokenData', tokenDataJson(output.tokenData)),
      })),
      version: raw.version,
      lockTime: raw.lockTime,
      size: raw.size,
      hash: raw.hash,
    },
  };
}

export function parseRoutes(deps: RouteDeps) {
  const { ctx } = deps;
  const config: ClientTokenConfig = {
    tokenId: ctx.token.tokenId,
    approver: toHex(ctx.token.approver),
    feeAddress: ctx.token.feeAddress,
    mintAddress: ctx.token.mintAddress,
  };
  const maxHexLength = 2 * ctx.token.limits.maxTxBytes;

  /**
   * The source outputs of `raw`'s inputs, from the transactions GET /v1/tx serves, in one query.
   * A posted transaction may have at most the transfer input limit (`maxInputs`) of inputs.
   */
  async function sourcesOf(raw: Uint8Array, maxInputs?: number): Promise<SourceOutputs> {
    const served = await rawTransactions(ctx.db, sourceTxidsOf(raw, maxInputs));
    return sourceOutputsFrom(raw, served);
  }

  async function parse(raw: Uint8Array, includeRaw: boolean, maxInputs?: number): Promise<ParseJson> {
    const sources = await sourcesOf(raw, maxInputs);
    return parseJson(parseTransaction(raw, sources, config, deps.environment, { includeRaw }));
  }

  return (app: AppInstance) => {
    app.get(
      '/v2/parse/:txid',
      {
        config: read,
        schema: {
          summary: 'Parse a transaction the service serves (what the client computes as parseTx)',
          tags: ['parse'],
          params: Type.Object({ txid: Type.String({ description: 'Transaction ID (64 hex digits)' }) }),
          querystring: Type.Object({ ...authTokenQuery, includeRaw: Type.Optional(IncludeRaw) }),
          response: { 200: ParseSchema, ...problemResponses(400, 404) },
        },
      },
      async (request) => {
        const { txid } = request.params;
        if (!TXID.test(txid)) throw new AppError('INVALID_TXID', `invalid transaction ID: ${txid}`);
        const raw = await rawTransaction(ctx.db, txid.toLowerCase());
        if (raw === null) throw new AppError('NOT_FOUND', `transaction ${txid} not found`);
        return parse(raw, request.query.includeRaw === true);
      },
    );

    app.post(
      '/v2/parse',
      {
        config: read,
        schema: {
          summary: 'Parse a raw transaction (what the client computes as parseTxFromRawTx)',
          tags: ['parse'],
          body: Type.Object(
            {
              rawtx: Type.String({ minLength: 1, description: 'Raw transaction, hex' }),
              includeRaw: Type.Optional(IncludeRaw),
            },
            { additionalProperties: false },
          ),
          querystring: Type.Object(authTokenQuery),
          response: { 200: ParseSchema, ...problemResponses(400) },
        },
      },
      async (request) => {
        const { rawtx, includeRaw } = request.body;
        if (rawtx.length > maxHexLength) {
          throw new AppError(
            'LIMIT_EXCEEDED',
            `rawtx exceeds ${ctx.token.limits.maxTxBytes} bytes (${maxHexLength} hex digits)`,
          );
        }
        if (!HEX.test(rawtx))
          throw new AppError('INVALID_TX', 'rawtx is not hex (an even number of hex digits)');
        return parse(
          new Uint8Array(Buffer.from(rawtx, 'hex')),
          includeRaw === true,
          ctx.token.limits.maxInputs,
        );
      },
    );
  };
}
