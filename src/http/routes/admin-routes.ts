// The operator's routes: minting out of the treasury (`mint`), mining on the devnet (`admin`) and
// a status report (`audit`); `admin` holds every scope. API keys have their own routes
// (key-routes.ts). The CLI (src/cli) is a thin shell over these.
// Amounts come in as decimal token strings and go out as atomic integers with their token text.
import { Type } from 'typebox';
import { formatTokens, parseTokens, toJsonNumber } from '../../domain/amount.js';
import { frozenHoldings } from '../../store/controls/freeze-store.js';
import { availableFundingCount } from '../../store/funding/funding-pool.js';
import { ticketCounts } from '../../store/tickets/ticket-counts.js';
import { keptSupply } from '../../store/wallets/kept-supply.js';
import { redeemedAmount } from '../../store/wallets/wallet-queries.js';
import { checkAllowance } from '../../usecases/controls/allowances.js';
import { checkMintRequest, mintTokens } from '../../usecases/supply/mint-tokens.js';
import type { AppInstance } from '../app.js';
import { AppError } from '../app-error.js';
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
}

export const MAX_BLOCKS_PER_MINE = 1000;

const admin = { scope: 'admin' as const };
const query = Type.Object(authTokenQuery);

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
  return (app: AppInstance) => {
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
