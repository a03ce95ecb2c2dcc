// Per-key mint allowances over HTTP (issue 32; docs/operations.md, "Set up approvals"): list and
// show them (`audit`) and set one (`policy`). A raise is held back as a raise-allowance proposal
// when the approval policy says so: the route then answers 202 with it (heldBack). The CLI's
// `tokenproxy allowance` and the console's Proposals panel use these.
import { Type } from 'typebox';
import { formatTokens, parseTokens, toJsonNumber } from '../../domain/amount.js';
import { listApiKeys } from '../../store/access/api-keys-store.js';
import { allowanceOf, listAllowances } from '../../store/controls/allowance-store.js';
import { setMintAllowance } from '../../usecases/controls/allowances.js';
import type { AppInstance } from '../app.js';
import { AppError } from '../app-error.js';
import { authTokenQuery, problemResponses } from '../schemas/common.js';
import {
  AllowanceBody,
  AllowanceJson,
  AllowanceList,
  AllowanceSet,
  ProposalJson,
} from '../schemas/proposal-schemas.js';
import { actorOf, heldBack } from './proposal-routes.js';
import type { RouteDeps } from './route-deps.js';

const query = Type.Object(authTokenQuery);

function allowanceJson(a: { keyId: string; remaining: bigint; setBy: string; setAt: Date }) {
  return {
    keyId: a.keyId,
    remaining: { atomic: toJsonNumber(a.remaining), tokens: formatTokens(a.remaining) },
    setBy: a.setBy,
    setAt: a.setAt.toISOString(),
  };
}

export function allowanceRoutes(deps: RouteDeps) {
  const { ctx } = deps;
  return (app: AppInstance) => {
    app.get(
      '/v2/admin/allowances',
      {
        config: { scope: 'audit' },
        schema: {
          summary: 'Mint allowances: what each capped key may still mint (a key not listed has no cap)',
          tags: ['admin'],
          querystring: query,
          response: { 200: AllowanceList },
        },
      },
      async () => ({ allowances: (await listAllowances(ctx.db)).map(allowanceJson) }),
    );

    app.get(
      '/v2/admin/allowances/:keyId',
      {
        config: { scope: 'audit' },
        schema: {
          summary: "One key's mint allowance (404: the key has none, it mints without a cap)",
          tags: ['admin'],
          params: Type.Object({ keyId: Type.String({ format: 'uuid' }) }),
          querystring: query,
          response: { 200: AllowanceJson, ...problemResponses(404) },
        },
      },
      async (request) => {
        const a = await allowanceOf(ctx.db, request.params.keyId);
        if (a === null)
          throw new AppError('NOT_FOUND', `key ${request.params.keyId} has no allowance (no cap)`);
        return allowanceJson(a);
      },
    );

    app.put(
      '/v2/admin/allowances/:keyId',
      {
        config: { scope: 'policy' },
        schema: {
          summary:
            "Set a key's mint allowance (null: no cap); a raise is held back as a raise-allowance proposal when the policy says so",
          tags: ['admin'],
          params: Type.Object({ keyId: Type.String({ format: 'uuid' }) }),
          body: AllowanceBody,
          querystring: query,
          response: { 200: AllowanceSet, 202: ProposalJson, ...problemResponses(400, 404) },
        },
      },
      async (request, reply) => {
        const { keyId } = request.params;
        if (!(await listApiKeys(ctx.db)).some((k) => k.id === keyId && k.revokedAt === null))
          throw new AppError('NOT_FOUND', `no live API key with id ${keyId}`);
        const next = request.body.amount === null ? null : parseTokens(request.body.amount);
        // No token has more atomic units than this (tokenSupply), and amounts go out as JSON numbers.
        if (next !== null && next > BigInt(Number.MAX_SAFE_INTEGER))
          throw new AppError('INVALID_PARAMETER', 'an allowance is at most 2^53-1 atomic units');
        const { reason } = request.body;
        const show = (v: bigint | null) => (v === null ? 'no cap' : formatTokens(v));
        const actor = actorOf(request.principal);
        const set = { keyId, remaining: next, reason, actor };
        // A lowering is set at once, judged again under the allowance's lock: a mint spending
        // meanwhile can make the same value a raise, which the policy may hold back.
        let done = await setMintAllowance(ctx, { ...set, unlessRaise: true });
        if (done === null) {
          const current = (await allowanceOf(ctx.db, keyId))?.remaining ?? null;
          const held = await heldBack(deps, request, {
            action: 'raise-allowance',
            body: { keyId, amount: next?.toString() ?? null, reason },
            summary: `raise the mint allowance of ${keyId}: ${show(current)} -> ${show(next)}`,
          });
          if (held !== null) return reply.code(202).send(held);
          done = (await setMintAllowance(ctx, set))!;
        }
        request.log.warn({ keyId, actor, after: done.after?.toString() ?? null }, 'mint allowance set');
        return { keyId, before: done.before?.toString() ?? null, after: done.after?.toString() ?? null };
      },
    );
  };
}
