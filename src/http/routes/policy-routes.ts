// The approval policy over HTTP (issue 32; docs/operations.md, "Set up approvals"): read it
// (`audit`) and replace it (`policy`). Replacing it is itself an action the policy can hold back:
// the route then answers 202 with the set-policy proposal (heldBack). The CLI's
// `tokenproxy approvals` and the console's Proposals panel use these.
import { Type } from 'typebox';
import { PolicyError, parsePolicy, policyJson } from '../../domain/approval-policy.js';
import { approvalPolicy } from '../../store/controls/approval-policy-store.js';
import { setPolicy } from '../../usecases/controls/proposals.js';
import type { AppInstance } from '../app.js';
import { AppError } from '../app-error.js';
import { authTokenQuery, problemResponses } from '../schemas/common.js';
import { PolicyBody, PolicyJson, ProposalJson } from '../schemas/proposal-schemas.js';
import { actorOf, heldBack } from './proposal-routes.js';
import type { RouteDeps } from './route-deps.js';

const query = Type.Object(authTokenQuery);

/** Times a change is judged again because another committed meanwhile, before 409 POLICY_CHANGED. */
const POLICY_ATTEMPTS = 5;

export function policyRoutes(deps: RouteDeps) {
  const { ctx } = deps;
  return (app: AppInstance) => {
    app.get(
      '/v2/admin/approvals/policy',
      {
        config: { scope: 'audit' },
        schema: {
          summary: 'The approval policy: which actions need the approval of how many distinct keys',
          tags: ['admin'],
          querystring: query,
          response: { 200: PolicyJson },
        },
      },
      async () => {
        const stored = await approvalPolicy(ctx.db);
        return {
          rules: policyJson(parsePolicy(stored.rules)),
          changedBy: stored.changedBy,
          changedAt: stored.changedAt.toISOString(),
        };
      },
    );

    app.put(
      '/v2/admin/approvals/policy',
      {
        config: { scope: 'policy' },
        schema: {
          summary: 'Replace the approval policy (held back as a set-policy proposal when the policy says so)',
          tags: ['admin'],
          body: PolicyBody,
          querystring: query,
          response: { 200: PolicyJson, 202: ProposalJson, ...problemResponses(400, 409) },
        },
      },
      async (request, reply) => {
        let rules: ReturnType<typeof policyJson>;
        try {
          rules = policyJson(parsePolicy(request.body.rules));
        } catch (err) {
          if (err instanceof PolicyError) throw new AppError('INVALID_PARAMETER', err.message);
          throw err;
        }
        const { reason } = request.body;
        const actor = actorOf(request.principal);
        // Whether this change needs approvals is judged under the policy it replaces: the change
        // commits only while the version read before the judgement is in force, else it is
        // judged again under the one committed meanwhile.
        for (let attempt = 1; ; attempt++) {
          const seen = (await approvalPolicy(ctx.db)).version;
          const held = await heldBack(deps, request, {
            action: 'set-policy',
            body: { rules, reason },
            summary: `approval policy: ${rules.map((r) => `${r.action} ${r.approvals}`).join(', ') || 'none'}`,
          });
          if (held !== null) return reply.code(202).send(held);
          const at = await setPolicy(ctx, { rules, reason, actor }, seen);
          if (at !== null) {
            request.log.warn({ actor, rules: rules.length }, 'approval policy changed');
            return { rules, changedBy: actor, changedAt: at.toISOString() };
          }
          if (attempt >= POLICY_ATTEMPTS)
            throw new AppError(
              'POLICY_CHANGED',
              `the approval policy changed ${attempt} times while this change was judged; send it again`,
            );
        }
      },
    );
  };
}
