// Seize and reissue (scope `seize`; docs/operations.md, "Issuer's runbook"): frozen or
// blacklisted outputs never cosigned again, their value minted to the address the order names,
// in one audited operation; and the list of seizures (scope `audit`).
import { Type } from 'typebox';
import { listSeizures, type Seizure } from '../../store/controls/seizure-store.js';
import { finishPreparedSeizures, seizeAndReissue } from '../../usecases/controls/seize-and-reissue.js';
import type { AppInstance } from '../app.js';
import { AppError } from '../app-error.js';
import { idempotencyHooks } from '../plugins/idempotency.js';
import { problemResponses } from '../schemas/common.js';
import { ProposalJson } from '../schemas/proposal-schemas.js';
import { AmountJson, amountJson } from './admin-routes.js';
import { actorOf, query, Reason, Time } from './control-routes.js';
import { heldBack } from './proposal-routes.js';
import type { RouteDeps } from './route-deps.js';

const SeizureBody = Type.Object(
  {
    reference: Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        "The order's number or hash: one seizure per reference (sending it again completes or answers it)",
    }),
    reason: Reason,
    outpoints: Type.Array(Type.String({ pattern: '^[0-9a-f]{64}_(0|[1-9][0-9]{0,9})$' }), {
      minItems: 1,
      maxItems: 1000,
      description: 'Outputs of frozen or blacklisted addresses, `<txid>_<vout>`',
    }),
    reissueTo: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'The address the value is minted to',
    }),
  },
  {
    additionalProperties: false,
    examples: [
      {
        reference: 'court order 2026-CV-0042',
        reason: 'stolen funds returned to their owner',
        outpoints: [`${'ab'.repeat(32)}_1`],
        reissueTo: '1BoatSLRHtKNngkdXEeobR76b53LETtpyT',
      },
    ],
  },
);
const SeizureJson = Type.Object({
  id: Type.String(),
  reference: Type.String(),
  reason: Type.String(),
  reissueTo: Type.String(),
  amount: AmountJson,
  state: Type.Union([Type.Literal('prepared'), Type.Literal('reissued')], {
    description:
      "prepared: recorded with its reissue built and kept, not yet submitted (completed by sending the order again, or by the api's recovery pass); reissued: the reissue's ticket committed",
  }),
  reissueTxid: Type.Union([Type.String(), Type.Null()], {
    description: 'The mint to reissueTo; null until its ticket is committed',
  }),
  outputs: Type.Array(Type.Object({ outpoint: Type.String(), owner: Type.String(), amount: AmountJson })),
  actor: Type.String({ description: 'The admin key id that ordered it' }),
  at: Time,
});
const SeizureDone = Type.Object({
  ...SeizureJson.properties,
  created: Type.Boolean({
    description: 'False when the reference was recorded before (answered again, or completed)',
  }),
});
const Seizures = Type.Object({ seizures: Type.Array(SeizureJson), total: AmountJson });

/** How often the api completes prepared seizures (a process killed mid-seizure), besides at its start. */
const RECOVERY_EVERY_MS = 60_000;

export function seizureRoutes(deps: RouteDeps & { readonly mintKey: Uint8Array }) {
  const { ctx } = deps;
  // A seizure's reference already makes a retry answer the first order; Idempotency-Key makes
  // it answer the first answer, as every other admin write that moves value does.
  const idempotent = idempotencyHooks(ctx.db, ctx.now);
  return (app: AppInstance) => {
    // Seizures a killed process left prepared are completed without waiting for a retry: their
    // kept reissue submitted (once: a second submission answers the first ticket).
    let recovery: NodeJS.Timeout | undefined;
    const recover = () =>
      void finishPreparedSeizures(ctx, deps.mintKey).catch((err: unknown) =>
        ctx.log.error({ err }, 'the seizure recovery pass failed'),
      );
    app.addHook('onReady', async () => {
      recover();
      recovery = setInterval(recover, RECOVERY_EVERY_MS);
      recovery.unref();
    });
    app.addHook('onClose', async () => clearInterval(recovery));

    app.post(
      '/v2/admin/seizures',
      {
        config: { scope: 'seize' },
        ...idempotent,
        schema: {
          summary:
            'Seize frozen outputs and reissue their value to the named address, in one audited operation',
          tags: ['admin'],
          body: SeizureBody,
          querystring: query,
          response: {
            200: SeizureDone,
            201: SeizureDone,
            202: ProposalJson,
            ...problemResponses(400, 403, 409, 422),
          },
        },
      },
      async (request, reply) => {
        const held = await heldBack(deps, request, {
          action: 'seize',
          body: { ...request.body },
          summary: `seize ${request.body.outpoints.length} output(s) under ${request.body.reference}, reissue to ${request.body.reissueTo}`,
        });
        if (held !== null) return reply.code(202).send(held);
        const actor = actorOf(request.principal);
        const done = await seizeAndReissue(ctx, deps.mintKey, { ...request.body, actor });
        if (done.kind === 'refused') throw new AppError('SEIZURE_REFUSED', done.why);
        request.log.warn(
          { reference: done.seizure.reference, amount: done.seizure.amount.toString(), actor },
          'outputs seized and reissued',
        );
        return reply
          .code(done.created ? 201 : 200)
          .send({ ...seizureJson(done.seizure), created: done.created });
      },
    );

    app.get(
      '/v2/admin/seizures',
      {
        config: { scope: 'audit' },
        schema: {
          summary: 'Seizures, newest first, with their outputs and reissues',
          tags: ['admin'],
          querystring: query,
          response: { 200: Seizures },
        },
      },
      async () => {
        const seizures = await listSeizures(ctx.db);
        return {
          seizures: seizures.map(seizureJson),
          total: amountJson(seizures.reduce((sum, z) => sum + z.amount, 0n)),
        };
      },
    );
  };
}

function seizureJson(z: Seizure) {
  return {
    id: z.id,
    reference: z.reference,
    reason: z.reason,
    reissueTo: z.reissueTo,
    amount: amountJson(z.amount),
    state: z.state,
    reissueTxid: z.reissueTxid,
    outputs: z.outputs.map((o) => ({
      outpoint: `${o.txid}_${o.vout}`,
      owner: o.owner,
      amount: amountJson(o.amount),
    })),
    actor: z.actor,
    at: z.at.toISOString(),
  };
}
