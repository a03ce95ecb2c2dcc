// The operator's routes: API keys (scope `keys`, with their own rate limits), minting out of the
// treasury (`mint`), mining on the devnet (`admin`) and a status report (`audit`); `admin` holds
// every scope (issue 32). The CLI (src/cli) is a thin shell over these.
// Amounts come in as decimal token strings and go out as atomic integers with their token text.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { formatTokens, parseTokens, toJsonNumber } from '../../domain/amount.js';
import {
  API_KEY_SCOPES,
  type ApiKeyInfo,
  ApiKeyInputError,
  type ApiKeyScope,
  listApiKeys,
  liveApiKeyScopes,
  MAX_KEY_RATE_LIMIT,
} from '../../store/access/api-keys-store.js';
import { frozenHoldings } from '../../store/controls/freeze-store.js';
import { availableFundingCount } from '../../store/funding/funding-pool.js';
import { ticketCounts } from '../../store/tickets/ticket-counts.js';
import { keptSupply } from '../../store/wallets/kept-supply.js';
import { redeemedAmount } from '../../store/wallets/wallet-queries.js';
import { issueApiKey, revokeKey, setKeyRateLimit } from '../../usecases/admin/manage-api-keys.js';
import { checkAllowance } from '../../usecases/controls/allowances.js';
import { checkMintRequest, mintTokens } from '../../usecases/supply/mint-tokens.js';
import type { AppInstance } from '../app.js';
import { AppError } from '../app-error.js';
import { grants } from '../plugins/auth.js';
import { idempotencyHooks, preparedUnder } from '../plugins/idempotency.js';
import { authTokenQuery, problemResponses } from '../schemas/common.js';
import { ProposalJson } from '../schemas/proposal-schemas.js';
import { askTip, TipJson, TipProblemJson } from './chain-tip.js';
import { heldBack } from './proposal-routes.js';
import type { RouteDeps } from './route-deps.js';

/** Mining on command: the embedded devnet answers it; any other ledger is null. */
export interface BlockMiner {
  mine(blocks: number): Promise<readonly { readonly height: number; readonly hash: string }[]>;
}

export interface AdminRouteDeps extends RouteDeps {
  /** The treasury's key: mints are transfers out of the mint address, signed with it. */
  readonly mintKey: Uint8Array;
  /** The devnet, or null when the ledger is ARC. */
  readonly miner: BlockMiner | null;
  /** Atomic units deployed: circulating + treasury + burned must always equal it. */
  readonly genesisSupply: bigint;
  /** Drops the verifier's remembered keys so that a revocation takes effect at once. */
  readonly forgetApiKeys: () => void;
}

export const DEFAULT_KEY_SCOPES: readonly ApiKeyScope[] = ['read', 'submit'];
export const MAX_BLOCKS_PER_MINE = 1000;

const admin = { scope: 'admin' as const };
const query = Type.Object(authTokenQuery);

const KeyRateLimit = Type.Union([Type.Integer({ minimum: 1, maximum: MAX_KEY_RATE_LIMIT }), Type.Null()], {
  description:
    'Requests per rate-limit window for this key, in place of the configured rateLimitPerKey; null: that default',
});

const CreateKeyBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    scopes: Type.Optional(
      Type.Array(Type.Enum([...API_KEY_SCOPES]), { minItems: 1, maxItems: API_KEY_SCOPES.length }),
    ),
    rateLimit: Type.Optional(KeyRateLimit),
  },
  { additionalProperties: false },
);

const KeyIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

const UpdateKeyBody = Type.Object({ rateLimit: KeyRateLimit }, { additionalProperties: false });

const MintBody = Type.Object(
  {
    to: Type.String({ minLength: 1, maxLength: 100, description: 'P2PKH address receiving the tokens' }),
    amount: Type.String({
      minLength: 1,
      maxLength: 40,
      description: 'Decimal token amount, e.g. "12.5" (at most 5 decimals)',
    }),
  },
  { additionalProperties: false },
);

const MineBody = Type.Object(
  { blocks: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_BLOCKS_PER_MINE, default: 1 })) },
  { additionalProperties: false },
);

const Time = Type.String({ format: 'date-time' });
const ApiKeyJson = Type.Object({
  id: Type.String(),
  name: Type.String(),
  scopes: Type.Array(Type.Enum([...API_KEY_SCOPES])),
  rateLimit: Type.Union([Type.Integer(), Type.Null()]),
  createdAt: Time,
  lastUsedAt: Type.Union([Time, Type.Null()]),
  revokedAt: Type.Union([Time, Type.Null()]),
});
const CreatedKey = Type.Object({
  id: Type.String(),
  key: Type.String({ description: 'The API key: shown once' }),
  webhookSecret: Type.String({ description: 'Secret signing the callbacks of this key (Standard Webhooks)' }),
  name: Type.String(),
  scopes: Type.Array(Type.Enum([...API_KEY_SCOPES])),
  rateLimit: Type.Union([Type.Integer(), Type.Null()]),
  createdAt: Time,
});
/** An amount on the wire (amountJson). */
export const AmountJson = Type.Object({
  atomic: Type.Integer({ minimum: 0, description: 'Atomic units' }),
  tokens: Type.String({ description: 'Decimal token text' }),
});
const StatusJson = Type.Object({
  environment: Type.String(),
  tokenId: Type.String(),
  tip: TipJson,
  tipProblem: TipProblemJson,
  supply: Type.Object({
    genesis: AmountJson,
    circulating: AmountJson,
    treasury: AmountJson,
    burned: AmountJson,
    redeemed: AmountJson,
    seized: Type.Optional(AmountJson),
  }),
  fundingPool: Type.Object({ available: Type.Integer() }),
  tickets: Type.Record(Type.String(), Type.Integer(), { description: 'Tickets by status' }),
  frozen: Type.Object(
    { addresses: Type.Integer(), balance: AmountJson },
    { description: 'The freeze list: how many addresses, and the tokens they hold' },
  ),
});

export function adminRoutes(deps: AdminRouteDeps) {
  const { ctx } = deps;
  // Writes that move value honour Idempotency-Key as transfers do (contract.md, Transfer).
  const idempotent = idempotencyHooks(ctx.db, ctx.now);
  /**
   * Refuses a change to a key with powers the asking key does not hold: a `keys` key that could
   * revoke every admin key, or throttle one, would be stronger than the admin keys it cannot make.
   * A key's scopes never change, so reading them before the change is enough.
   */
  const checkStrongerKey = async (request: FastifyRequest, id: string, verb: string): Promise<void> => {
    const target = await liveApiKeyScopes(ctx.db, id);
    const beyond = target === null ? [] : scopesBeyond(request, target);
    if (beyond.length > 0)
      throw new AppError(
        'FORBIDDEN',
        `this key cannot ${verb} a key with scopes it does not hold: ${beyond.join(', ')}`,
      );
  };
  return (app: AppInstance) => {
    app.post(
      '/v2/admin/keys',
      {
        config: { scope: 'keys' },
        schema: {
          body: CreateKeyBody,
          querystring: query,
          response: { 201: CreatedKey, 202: ProposalJson, ...problemResponses(400, 403) },
        },
      },
      async (request, reply) => {
        const { name = 'api key', scopes = DEFAULT_KEY_SCOPES, rateLimit = null } = request.body;
        // No key makes a key stronger than itself: besides read and submit, a key without
        // `admin` grants only scopes it holds (a `keys` key cannot mint an admin key).
        const beyond = scopesBeyond(request, scopes);
        if (beyond.length > 0)
          throw new AppError(
            'FORBIDDEN',
            `this key cannot grant scopes it does not hold: ${beyond.join(', ')}`,
          );
        // A key with any power beyond read and submit is an action the approval policy can hold back.
        if (scopes.some((s) => s !== 'read' && s !== 'submit')) {
          const held = await heldBack(deps, request, {
            action: 'create-key',
            body: { name, scopes: [...scopes], rateLimit },
            summary: `create key "${name}" (${scopes.join(', ')})`,
          });
          if (held !== null) return reply.code(202).send(held);
        }
        try {
          const created = await issueApiKey(ctx, deps.masterKey, { name, scopes, rateLimit });
          return reply.code(201).send({
            id: created.id,
            key: created.key,
            webhookSecret: created.webhookSecret,
            name: created.name,
            scopes: [...created.scopes],
            rateLimit: created.rateLimit ?? null,
            createdAt: created.createdAt.toISOString(),
          });
        } catch (err) {
          if (err instanceof ApiKeyInputError) throw new AppError('INVALID_PARAMETER', err.message);
          throw err;
        }
      },
    );

    app.get(
      '/v2/admin/keys',
      {
        config: { scope: 'keys' },
        schema: { querystring: query, response: { 200: Type.Object({ keys: Type.Array(ApiKeyJson) }) } },
      },
      async () => ({
        keys: (await listApiKeys(ctx.db)).map(apiKeyJson),
      }),
    );

    app.patch(
      '/v2/admin/keys/:id',
      {
        config: { scope: 'keys' },
        schema: {
          summary: "Change a live key's own rate limit (null: back to the configured default)",
          params: KeyIdParams,
          body: UpdateKeyBody,
          querystring: query,
          response: { 200: ApiKeyJson, ...problemResponses(400, 403, 404) },
        },
      },
      async (request) => {
        const { id } = request.params;
        const { rateLimit } = request.body;
        await checkStrongerKey(request, id, 'limit');
        if (!(await setKeyRateLimit(ctx, id, rateLimit)))
          throw new AppError('NOT_FOUND', `no live API key with id ${id}`);
        deps.forgetApiKeys();
        const key = (await listApiKeys(ctx.db)).find((k) => k.id === id);
        if (key === undefined) throw new AppError('NOT_FOUND', `no live API key with id ${id}`);
        return apiKeyJson(key);
      },
    );

    app.delete(
      '/v2/admin/keys/:id',
      {
        config: { scope: 'keys' },
        schema: {
          params: KeyIdParams,
          querystring: query,
          response: {
            200: Type.Object({ id: Type.String(), revokedAt: Time }),
            ...problemResponses(403, 404, 409),
          },
        },
      },
      async (request) => {
        const { id } = request.params;
        await checkStrongerKey(request, id, 'revoke');
        const revoked = await revokeKey(ctx, id, request.principal?.id);
        if (revoked.kind === 'in-use')
          throw new AppError(
            'KEY_IN_USE',
            'this request is authorized by the key it revokes: use another admin key',
          );
        if (revoked.kind === 'no-key') throw new AppError('NOT_FOUND', `no live API key with id ${id}`);
        if (revoked.kind === 'asker-revoked')
          throw new AppError('UNAUTHORIZED', 'the key that asked was revoked before this revocation ran');
        deps.forgetApiKeys();
        return { id, revokedAt: revoked.revokedAt.toISOString() };
      },
    );

    app.post(
      '/v2/admin/mint',
      {
        config: { scope: 'mint' },
        ...idempotent,
        schema: {
          body: MintBody,
          querystring: query,
          response: {
            200: Type.Object({ ticketId: Type.String(), txid: Type.String() }),
            202: ProposalJson,
            ...problemResponses(400),
          },
        },
      },
      async (request, reply) => {
        const amount = parseTokens(request.body.amount);
        const minter = request.principal?.id ?? 'unknown';
        const prepared = preparedUnder(ctx.db, request, ctx.now);
        // A retry of a mint whose transaction an earlier attempt kept goes on with that one: it
        // passed these checks, and may have committed (its answer lost), so a refusal here would
        // tell the operator no mint happened when one did. Its allowance is charged (once) as
        // it is submitted.
        const resumed = ((await prepared?.earlier()) ?? null) !== null;
        if (!resumed) {
          checkMintRequest(ctx.token, request.body.to, amount);
          // The asking key's allowance (issue 32) caps what it mints, held back or not.
          await checkAllowance(ctx, minter, amount);
          const held = await heldBack(deps, request, {
            action: 'mint',
            body: { to: request.body.to, amount: amount.toString() },
            summary: `mint ${formatTokens(amount)} to ${request.body.to}`,
            amount,
          });
          if (held !== null) return reply.code(202).send(held);
        }
        const { ticketId, txid } = await mintTokens(
          ctx,
          deps.mintKey,
          { to: request.body.to, amount, minter },
          prepared,
        );
        return { ticketId, txid };
      },
    );

    app.post(
      '/v2/admin/mine',
      {
        config: admin,
        schema: {
          body: MineBody,
          querystring: query,
          response: {
            200: Type.Object({
              blocks: Type.Array(Type.Object({ height: Type.Integer(), hash: Type.String() })),
            }),
            ...problemResponses(404),
          },
        },
        // a bare POST (no body) mines one block
        preValidation: async (request) => {
          request.body ??= {};
        },
      },
      async (request) => {
        if (deps.miner === null) {
          throw new AppError(
            'NOT_FOUND',
            'mining on command exists only on the embedded devnet; this service broadcasts to ARC',
          );
        }
        const mined = await deps.miner.mine(request.body.blocks ?? 1);
        return { blocks: mined.map(({ height, hash }) => ({ height, hash })) };
      },
    );

    app.get(
      '/v2/admin/status',
      { config: { scope: 'audit' }, schema: { querystring: query, response: { 200: StatusJson } } },
      async () => {
        const [asked, where, available, tickets, redeemed, frozen] = await Promise.all([
          askTip(ctx.ledger),
          keptSupply(ctx.db, ctx.token),
          availableFundingCount(ctx.db),
          ticketCounts(ctx.db),
          redeemedAmount(ctx.db, ctx.token.burnAddress),
          frozenHoldings(ctx.db),
        ]);
        const total = where.circulating + where.treasury + where.burned + where.seized;
        if (total !== deps.genesisSupply) {
          throw new AppError(
            'INTERNAL',
            `supply does not balance: genesis ${deps.genesisSupply} <> circulating ${where.circulating} + treasury ${where.treasury} + burned ${where.burned} + seized ${where.seized}`,
          );
        }
        return {
          environment: deps.environment,
          tokenId: ctx.token.tokenId,
          ...asked,
          supply: {
            genesis: amountJson(deps.genesisSupply),
            circulating: amountJson(where.circulating),
            treasury: amountJson(where.treasury),
            burned: amountJson(where.burned),
            // Of burned: transfers to the burn address (redemptions), not burn outputs.
            redeemed: amountJson(redeemed),
            // Taken by seizures (issue 32): never cosigned again, their value reissued.
            seized: amountJson(where.seized),
          },
          fundingPool: { available },
          tickets,
          // The freeze list: addresses whose outputs are not cosigned, and what they hold.
          frozen: {
            addresses: frozen.length,
            balance: amountJson(frozen.reduce((sum, f) => sum + f.balance, 0n)),
          },
        };
      },
    );
  };
}

/** An amount on the wire: atomic units (exact JSON integer) and the decimal token text. */
export function amountJson(atomic: bigint) {
  return { atomic: toJsonNumber(atomic), tokens: formatTokens(atomic) };
}

function apiKeyJson(k: ApiKeyInfo) {
  return {
    id: k.id,
    name: k.name,
    scopes: [...k.scopes],
    rateLimit: k.rateLimit,
    createdAt: k.createdAt.toISOString(),
    lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
    revokedAt: k.revokedAt?.toISOString() ?? null,
  };
}

/**
 * Of `scopes`, those the asking key may not grant: besides read and submit, which any key may, a
 * key without `admin` grants only the scopes it holds itself.
 */
function scopesBeyond(request: FastifyRequest, scopes: readonly ApiKeyScope[]): ApiKeyScope[] {
  const holder = request.principal?.scopes ?? [];
  return scopes.filter((s) => s !== 'read' && s !== 'submit' && !grants(holder, s));
}
