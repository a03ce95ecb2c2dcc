// The issuer's controls (docs/operations.md, "Issuer's runbook"): pause and unpause transfers
// (scope `pause`), the blacklist (scope `freeze`: an address on it can neither send nor
// receive), and the control record (scope `audit`): every change with the admin key that made
// it and why. Seize and reissue is in seizure-routes.ts. The CLI (`tokenproxy pause | unpause | blacklist | unblacklist | controls`)
// and the console use these.
import { Type } from 'typebox';
import { isValidAddress, pubKeyHashOf } from '../../domain/address.js';
import { unlistableReason } from '../../domain/issuer-controls.js';
import { blacklistHoldings, type Listing } from '../../store/controls/blacklist-store.js';
import { type ControlEvent, controlEvents } from '../../store/controls/control-events.js';
import { type PauseState, pauseState } from '../../store/controls/pause-store.js';
import { blacklist, changePause, unblacklist } from '../../usecases/controls/change-controls.js';
import type { AppInstance } from '../app.js';
import { AppError } from '../app-error.js';
import { grants, NARROW_ADMIN_SCOPES, type Scope } from '../plugins/auth.js';
import { authTokenQuery, problemResponses } from '../schemas/common.js';
import { ProposalJson } from '../schemas/proposal-schemas.js';
import { AmountJson, amountJson } from './admin-routes.js';
import { heldBack } from './proposal-routes.js';
import type { RouteDeps } from './route-deps.js';

/** Control events the record answers with (newest first). */
export const CONTROL_EVENTS_LISTED = 100;

export const query = Type.Object(authTokenQuery);
export const Time = Type.String({ format: 'date-time' });
export const Reason = Type.String({
  minLength: 1,
  maxLength: 500,
  description: 'Why (recorded with the admin key id in the control record)',
});
const Address = Type.String({ minLength: 1, maxLength: 100, description: 'P2PKH address' });

const PauseJson = Type.Object(
  {
    paused: Type.Boolean({ description: 'True: no transfer is cosigned but the issuer’s own burns' }),
    reason: Type.String(),
    changedBy: Type.String({ description: 'The admin key id of the last change' }),
    changedAt: Time,
  },
  {
    examples: [
      { paused: true, reason: 'incident 17', changedBy: '0192…', changedAt: '2026-11-27T10:00:00.000Z' },
    ],
  },
);
const PauseBody = Type.Object(
  { paused: Type.Boolean(), reason: Reason },
  {
    additionalProperties: false,
    examples: [{ paused: true, reason: 'incident 17: key compromise suspected' }],
  },
);
const PauseChanged = Type.Object({
  ...PauseJson.properties,
  changed: Type.Boolean({ description: 'False when it was so already (nothing recorded)' }),
});

const ListingJson = Type.Object({
  address: Type.String(),
  reason: Type.String(),
  listedBy: Type.String({ description: 'The admin key id that blacklisted it' }),
  listedAt: Time,
});
const BlacklistBody = Type.Object(
  { address: Address, reason: Reason },
  {
    additionalProperties: false,
    examples: [{ address: '1BoatSLRHtKNngkdXEeobR76b53LETtpyT', reason: 'sanctions list entry 4411' }],
  },
);
const Listed = Type.Object({
  ...ListingJson.properties,
  changed: Type.Boolean({ description: 'False when it was listed already (nothing recorded)' }),
});
const Unlisted = Type.Object({
  address: Type.String(),
  unlistedBy: Type.String(),
  unlistedAt: Time,
  reason: Type.String(),
});
const Blacklist = Type.Object({
  listed: Type.Array(Type.Object({ ...ListingJson.properties, balance: AmountJson })),
  total: AmountJson,
});
const EventJson = Type.Object({
  id: Type.String({ description: 'The record number (a 64-bit integer, as text)' }),
  action: Type.String({
    description:
      'pause, unpause, blacklist, unblacklist, seize, screening-deny, screening-timeout; approvals (operations.md, Set up approvals): proposal, proposal-approve, proposal-reject, proposal-expire, proposal-execute, proposal-fail, allowance-set, allowance-spend, policy-set',
  }),
  subject: Type.String({ description: "An address, a seizure's reference, a txid; '' for the pause" }),
  reason: Type.String(),
  actor: Type.String({ description: "The admin key id ('screening' for the screening service's answers)" }),
  at: Time,
  detail: Type.Record(Type.String(), Type.Unknown()),
});
const Events = Type.Object({
  events: Type.Array(EventJson, {
    description: `The latest ${CONTROL_EVENTS_LISTED} control events, newest first`,
  }),
});

const POWERS = ['admin', ...NARROW_ADMIN_SCOPES, 'audit'] as const;
const WhoAmI = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    scopes: Type.Array(Type.String()),
    may: Type.Object(Object.fromEntries(POWERS.map((p) => [p, Type.Boolean()])), {
      description: 'What this key may do, by scope (admin holds every one): the console shows only these',
    }),
  },
  {
    examples: [
      {
        id: '0192…',
        name: 'compliance desk',
        scopes: ['freeze'],
        may: {
          admin: false,
          mint: false,
          burn: false,
          freeze: true,
          seize: false,
          pause: false,
          keys: false,
          policy: false,
          audit: true,
        },
      },
    ],
  },
);

export function controlRoutes(deps: RouteDeps) {
  const { ctx } = deps;
  const checked = (address: string): string => {
    if (!isValidAddress(address)) throw new AppError('INVALID_ADDRESS', `invalid address: ${address}`);
    const refused = unlistableReason(address, ctx.token);
    if (refused !== null) throw new AppError('INVALID_PARAMETER', refused);
    return address;
  };
  return (app: AppInstance) => {
    app.get(
      '/v2/admin/whoami',
      {
        config: { scope: 'audit' },
        schema: {
          summary: 'The key asking, its scopes and what they let it do',
          tags: ['admin'],
          querystring: query,
          response: { 200: WhoAmI },
        },
      },
      async (request) => {
        const p = request.principal;
        const scopes: readonly Scope[] = p?.scopes ?? [];
        return {
          id: p?.id ?? '',
          name: p?.name ?? '',
          scopes: [...scopes],
          may: Object.fromEntries(POWERS.map((power) => [power, grants(scopes, power)])),
        };
      },
    );

    app.get(
      '/v2/admin/pause',
      {
        config: { scope: 'audit' },
        schema: {
          summary: 'Whether transfers are paused',
          tags: ['admin'],
          querystring: query,
          response: { 200: PauseJson },
        },
      },
      async () => pauseJson(await pauseState(ctx.db)),
    );

    app.put(
      '/v2/admin/pause',
      {
        config: { scope: 'pause' },
        schema: {
          summary: 'Pause or unpause transfers (every instance’s next submission batch reads it)',
          tags: ['admin'],
          body: PauseBody,
          querystring: query,
          response: { 200: PauseChanged, 202: ProposalJson, ...problemResponses(400) },
        },
      },
      async (request, reply) => {
        const actor = actorOf(request.principal);
        if (!request.body.paused) {
          const held = await heldBack(deps, request, {
            action: 'unpause',
            body: { reason: request.body.reason },
            summary: `unpause transfers: ${request.body.reason}`,
          });
          if (held !== null) return reply.code(202).send(held);
        }
        const { state, changed } = await changePause(ctx, {
          paused: request.body.paused,
          reason: request.body.reason,
          actor,
          at: ctx.now(),
        });
        request.log.warn(
          { paused: state.paused, actor, changed },
          state.paused ? 'transfers paused' : 'transfers unpaused',
        );
        return { ...pauseJson(state), changed };
      },
    );

    app.post(
      '/v2/admin/blacklist',
      {
        config: { scope: 'freeze' },
        schema: {
          summary: 'Blacklist an address: no transfer from or to it is cosigned, nothing is minted to it',
          tags: ['admin'],
          body: BlacklistBody,
          querystring: query,
          response: { 200: Listed, 201: Listed, ...problemResponses(400) },
        },
      },
      async (request, reply) => {
        const address = checked(request.body.address);
        // As a freeze: only P2PKH addresses own tokens, so listing another would do nothing while
        // the operator believes it does. (Taking one off the list stays possible.)
        if (pubKeyHashOf(address) === null)
          throw new AppError(
            'ADDRESS_CANNOT_OWN_TOKENS',
            `${address} is not a P2PKH address: no token output can be locked to it, so blacklisting it would do nothing`,
          );
        const { listing, changed } = await blacklist(ctx, {
          address,
          reason: request.body.reason,
          actor: actorOf(request.principal),
          at: ctx.now(),
        });
        request.log.warn({ address, actor: listing.listedBy, changed }, 'address blacklisted');
        return reply.code(changed ? 201 : 200).send({ ...listingJson(listing), changed });
      },
    );

    app.delete(
      '/v2/admin/blacklist/:address',
      {
        config: { scope: 'freeze' },
        schema: {
          summary: 'Take an address off the blacklist (recorded with the admin key id and the reason)',
          tags: ['admin'],
          params: Type.Object({ address: Address }),
          body: Type.Object({ reason: Reason }, { additionalProperties: false }),
          querystring: query,
          response: { 200: Unlisted, 202: ProposalJson, ...problemResponses(400, 404) },
        },
      },
      async (request, reply) => {
        const { address } = request.params;
        if (!isValidAddress(address)) throw new AppError('INVALID_ADDRESS', `invalid address: ${address}`);
        const held = await heldBack(deps, request, {
          action: 'unblacklist',
          body: { address, reason: request.body.reason },
          summary: `take ${address} off the blacklist: ${request.body.reason}`,
        });
        if (held !== null) return reply.code(202).send(held);
        const actor = actorOf(request.principal);
        const at = ctx.now();
        const removed = await unblacklist(ctx, { address, reason: request.body.reason, actor, at });
        if (removed === null) throw new AppError('NOT_FOUND', `address ${address} is not blacklisted`);
        request.log.warn({ address, actor }, 'address taken off the blacklist');
        return { address, unlistedBy: actor, unlistedAt: at.toISOString(), reason: request.body.reason };
      },
    );

    app.get(
      '/v2/admin/blacklist',
      {
        config: { scope: 'audit' },
        schema: {
          summary: 'The blacklisted addresses with what they hold',
          tags: ['admin'],
          querystring: query,
          response: { 200: Blacklist },
        },
      },
      async () => {
        const listed = await blacklistHoldings(ctx.db);
        return {
          listed: listed.map((l) => ({ ...listingJson(l), balance: amountJson(l.balance) })),
          total: amountJson(listed.reduce((sum, l) => sum + l.balance, 0n)),
        };
      },
    );

    app.get(
      '/v2/admin/controls/events',
      {
        config: { scope: 'audit' },
        schema: {
          summary: 'The control record: pauses, blacklistings, seizures, screening denials, with who and why',
          tags: ['admin'],
          querystring: query,
          response: { 200: Events },
        },
      },
      async () => ({ events: (await controlEvents(ctx.db, CONTROL_EVENTS_LISTED)).map(eventJson) }),
    );
  };
}

/** Who made the change: the admin key's id. */
export function actorOf(principal: { readonly id: string } | null): string {
  return principal === null ? 'unknown' : principal.id;
}

function pauseJson(s: PauseState) {
  return { paused: s.paused, reason: s.reason, changedBy: s.changedBy, changedAt: s.changedAt.toISOString() };
}

function listingJson(l: Listing) {
  return { address: l.address, reason: l.reason, listedBy: l.listedBy, listedAt: l.listedAt.toISOString() };
}

function eventJson(e: ControlEvent) {
  return { ...e, at: e.at.toISOString(), detail: { ...e.detail } };
}
