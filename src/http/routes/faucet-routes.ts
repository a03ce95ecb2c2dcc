// The sandbox faucet (POST /v2/faucet): test tokens to an address with no set-up. Any caller may
// ask (an anonymous one, the reference client's public token, a key), in sandbox only; each
// address and each client address gets a few grants a day (settings faucet*), from the mint
// treasury through the mint path. Production answers 403 SANDBOX_ONLY.
import { Type } from 'typebox';
import { formatTokens, toJsonNumber } from '../../domain/amount.js';
import { faucetTokens } from '../../usecases/supply/faucet-tokens.js';
import type { AppInstance } from '../app.js';
import { AppError } from '../app-error.js';
import { clientKeyOfAddress } from '../plugins/rate-limit.js';
import { authTokenQuery, problemResponses } from '../schemas/common.js';
import type { RouteDeps } from './route-deps.js';

export interface FaucetRouteDeps extends RouteDeps {
  readonly mintKey: Uint8Array;
  /** Atomic units sent per grant. */
  readonly amount: bigint;
  readonly perAddressPerDay: number;
  readonly perClientPerDay: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

const FaucetBody = Type.Object(
  {
    address: Type.String({ minLength: 1, maxLength: 100, description: 'The address to send test tokens to' }),
  },
  { additionalProperties: false, examples: [{ address: '1BoatSLRHtKNngkdXEeobR76b53LETtpyT' }] },
);

const FaucetAnswer = Type.Object(
  {
    ticketId: Type.String({ description: "The mint's ticket: follow it with GET /v2/ticket" }),
    txid: Type.String(),
    address: Type.String(),
    amount: Type.Integer({ description: 'Atomic units sent' }),
    tokens: Type.String({ description: 'The same amount in tokens' }),
  },
  {
    examples: [
      {
        ticketId: '0192f0c4-a1b2-7c3e-8d5f-6a7b8c9d0e1f',
        txid: 'a3f1c2d4e5b6a7980123456789abcdef0123456789abcdef0123456789abcdef',
        address: '1BoatSLRHtKNngkdXEeobR76b53LETtpyT',
        amount: 1000000,
        tokens: '10',
      },
    ],
  },
);

export function faucetRoutes(deps: FaucetRouteDeps) {
  return (app: AppInstance) => {
    app.post(
      '/v2/faucet',
      {
        config: { scope: 'read' },
        schema: {
          summary: 'Test tokens to an address (sandbox only)',
          body: FaucetBody,
          querystring: Type.Object(authTokenQuery),
          response: { 200: FaucetAnswer, ...problemResponses(400, 403, 429, 503) },
        },
      },
      async (request, reply) => {
        if (deps.environment !== 'sandbox')
          throw new AppError('SANDBOX_ONLY', 'the faucet serves the sandbox only');
        const result = await faucetTokens(
          deps.ctx,
          deps.mintKey,
          { to: request.body.address, client: clientKeyOfAddress(request.ip), amount: deps.amount },
          { perAddress: deps.perAddressPerDay, perClient: deps.perClientPerDay, windowMs: DAY_MS },
        );
        if (result.kind === 'over') {
          const seconds = Math.max(1, Math.ceil((result.retryAt.getTime() - Date.now()) / 1000));
          reply.header('retry-after', String(seconds));
          const bound = result.bound === 'address' ? deps.perAddressPerDay : deps.perClientPerDay;
          throw new AppError(
            'FAUCET_LIMIT',
            `the faucet gives ${bound} grants a day per ${result.bound === 'address' ? 'address' : 'client address'}; try again in ${seconds} s`,
          );
        }
        return {
          ticketId: result.ticketId,
          txid: result.txid,
          address: request.body.address,
          amount: toJsonNumber(result.amount),
          tokens: formatTokens(result.amount),
        };
      },
    );
  };
}
