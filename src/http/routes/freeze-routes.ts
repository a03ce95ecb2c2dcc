// The freeze list (scope `freeze`; the list: `audit`; `admin` holds both): freeze an address (the service then cosigns no transfer
// spending its outputs and mints nothing to it), unfreeze it, and list the frozen addresses
// with what they hold and the record of every freeze and unfreeze (who: the admin key id; why).
// The CLI (`tokenproxy freeze | unfreeze | freezes`) and the console's freeze panel use these.
import { Type } from 'typebox';
import { isValidAddress, pubKeyHashOf } from '../../domain/address.js';
import { unfreezableReason } from '../../domain/freeze.js';
import {
  type Freeze,
  type FreezeEvent,
  freezeEvents,
  frozenHoldings,
} from '../../store/controls/freeze-store.js';
import { freeze, unfreeze } from '../../usecases/admin/change-freeze-list.js';
import type { AppInstance } from '../app.js';
import { AppError } from '../app-error.js';
import { authTokenQuery, problemResponses } from '../schemas/common.js';
import { ProposalJson } from '../schemas/proposal-schemas.js';
import { AmountJson, amountJson } from './admin-routes.js';
import { heldBack } from './proposal-routes.js';
import type { RouteDeps } from './route-deps.js';

/** Events the list answers with (newest first). */
export const FREEZE_EVENTS_LISTED = 100;

const query = Type.Object(authTokenQuery);

const Reason = Type.String({
  minLength: 1,
  maxLength: 500,
  description: 'Why (recorded with the admin key id in the freeze record)',
});
const AddressParam = Type.String({ minLength: 1, maxLength: 100, description: 'P2PKH address' });

const FreezeBody = Type.Object({ address: AddressParam, reason: Reason }, { additionalProperties: false });
const UnfreezeBody = Type.Object({ reason: Reason }, { additionalProperties: false });
const AddressParams = Type.Object({ address: AddressParam });

const FreezeJson = Type.Object({
  address: Type.String(),
  reason: Type.String(),
  frozenBy: Type.String({ description: 'The admin key id that froze it' }),
  frozenAt: Type.String({ format: 'date-time' }),
});
const Frozen = Type.Object({
  ...FreezeJson.properties,
  changed: Type.Boolean({ description: 'False when the address was frozen already (nothing recorded)' }),
});
const Unfrozen = Type.Object({
  address: Type.String(),
  unfrozenBy: Type.String(),
  unfrozenAt: Type.String({ format: 'date-time' }),
  reason: Type.String(),
});
const FreezeList = Type.Object({
  frozen: Type.Array(Type.Object({ ...FreezeJson.properties, balance: AmountJson })),
  total: AmountJson,
  events: Type.Array(
    Type.Object({
      id: Type.String({ description: 'The record number (a 64-bit integer, as text)' }),
      address: Type.String(),
      action: Type.Enum(['freeze', 'unfreeze']),
      reason: Type.String(),
      actor: Type.String(),
      at: Type.String({ format: 'date-time' }),
    }),
    { description: `The latest ${FREEZE_EVENTS_LISTED} freezes and unfreezes, newest first` },
  ),
});

export function freezeRoutes(deps: RouteDeps) {
  const { ctx } = deps;
  const checked = (address: string): string => {
    if (!isValidAddress(address)) throw new AppError('INVALID_ADDRESS', `invalid address: ${address}`);
    // A freeze of an address no token output can be locked to would do nothing while the
    // operator believes it does: only P2PKH addresses own tokens (domain/address.ts).
    if (pubKeyHashOf(address) === null)
      throw new AppError(
        'ADDRESS_CANNOT_OWN_TOKENS',
        `${address} is not a P2PKH address: no token output can be locked to it, so a freeze would do nothing`,
      );
    const refused = unfreezableReason(address, ctx.token);
    if (refused !== null) throw new AppError('INVALID_PARAMETER', refused);
    return address;
  };
  return (app: AppInstance) => {
    app.post(
      '/v2/admin/freezes',
      {
        config: { scope: 'freeze' },
        schema: {
          summary: 'Freeze an address: no transfer spending its outputs is cosigned, nothing is minted to it',
          tags: ['admin'],
          body: FreezeBody,
          querystring: query,
          response: { 200: Frozen, 201: Frozen, ...problemResponses(400) },
        },
      },
      async (request, reply) => {
        const address = checked(request.body.address);
        const { freeze: frozen, changed } = await freeze(ctx, {
          address,
          reason: request.body.reason,
          actor: actorOf(request.principal),
          at: ctx.now(),
        });
        request.log.warn({ address, actor: frozen.frozenBy, changed }, 'address frozen');
        return reply.code(changed ? 201 : 200).send({ ...freezeJson(frozen), changed });
      },
    );

    app.delete(
      '/v2/admin/freezes/:address',
      {
        config: { scope: 'freeze' },
        schema: {
          summary: 'Unfreeze an address (recorded with the admin key id and the reason)',
          tags: ['admin'],
          params: AddressParams,
          body: UnfreezeBody,
          querystring: query,
          response: { 200: Unfrozen, 202: ProposalJson, ...problemResponses(400, 404) },
        },
      },
      async (request, reply) => {
        const { address } = request.params;
        if (!isValidAddress(address)) throw new AppError('INVALID_ADDRESS', `invalid address: ${address}`);
        const held = await heldBack(deps, request, {
          action: 'unfreeze',
          body: { address, reason: request.body.reason },
          summary: `unfreeze ${address}: ${request.body.reason}`,
        });
        if (held !== null) return reply.code(202).send(held);
        const actor = actorOf(request.principal);
        const at = ctx.now();
        const removed = await unfreeze(ctx, { address, reason: request.body.reason, actor, at });
        if (removed === null) throw new AppError('NOT_FOUND', `address ${address} is not frozen`);
        request.log.warn({ address, actor }, 'address unfrozen');
        return { address, unfrozenBy: actor, unfrozenAt: at.toISOString(), reason: request.body.reason };
      },
    );

    app.get(
      '/v2/admin/freezes',
      {
        config: { scope: 'audit' },
        schema: {
          summary: 'The frozen addresses with what they hold, and the latest freezes and unfreezes',
          tags: ['admin'],
          querystring: query,
          response: { 200: FreezeList },
        },
      },
      async () => {
        const [holdings, events] = await Promise.all([
          frozenHoldings(ctx.db),
          freezeEvents(ctx.db, FREEZE_EVENTS_LISTED),
        ]);
        return {
          frozen: holdings.map((h) => ({ ...freezeJson(h), balance: amountJson(h.balance) })),
          total: amountJson(holdings.reduce((sum, h) => sum + h.balance, 0n)),
          events: events.map(eventJson),
        };
      },
    );
  };
}

/** Who froze or unfroze: the admin key's id (the CLI uses the admin key in admin.key). */
function actorOf(principal: { readonly id: string } | null): string {
  return principal === null ? 'unknown' : principal.id;
}

function freezeJson(f: Freeze) {
  return { address: f.address, reason: f.reason, frozenBy: f.frozenBy, frozenAt: f.frozenAt.toISOString() };
}

function eventJson(e: FreezeEvent) {
  return {
    id: e.id,
    address: e.address,
    action: e.action,
    reason: e.reason,
    actor: e.actor,
    at: e.at.toISOString(),
  };
}
