// The operator's API keys (scope `keys`): make one, list them, change one's rate limit, revoke
// one. No key makes, limits or revokes a key with powers beyond its own (besides read and
// submit), and a key with more than read and submit can be held back by the approval policy.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  API_KEY_SCOPES,
  type ApiKeyInfo,
  ApiKeyInputError,
  type ApiKeyScope,
  listApiKeys,
  liveApiKeyScopes,
  MAX_KEY_RATE_LIMIT,
} from '../../store/access/api-keys-store.js';
import { issueApiKey, revokeKey, setKeyRateLimit } from '../../usecases/admin/manage-api-keys.js';
import type { AppInstance } from '../app.js';
import { AppError } from '../app-error.js';
import { grants } from '../plugins/auth.js';
import { authTokenQuery, problemResponses } from '../schemas/common.js';
import { ProposalJson } from '../schemas/proposal-schemas.js';
import { heldBack } from './proposal-routes.js';
import type { RouteDeps } from './route-deps.js';

export interface KeyRouteDeps extends RouteDeps {
  /** Drops the verifier's remembered keys so that a revocation takes effect at once. */
  readonly forgetApiKeys: () => void;
}

export const DEFAULT_KEY_SCOPES: readonly ApiKeyScope[] = ['read', 'submit'];

const query = Type.Object(authTokenQuery);
const Time = Type.String({ format: 'date-time' });

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

export function keyRoutes(deps: KeyRouteDeps) {
  const { ctx } = deps;
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
  };
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
