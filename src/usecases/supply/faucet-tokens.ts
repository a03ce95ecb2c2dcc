// The sandbox faucet: test tokens out of the mint treasury to an address, through the mint
// path (a transfer signed with the mint key), bounded per address and per client address over a
// day. A grant is recorded before the mint and dropped again if the mint is refused, so a bound
// is never passed by two instances at once and a refused mint costs the caller nothing.
import { pubKeyHashOf } from '../../domain/address.js';
import { DomainError } from '../../domain/domain-error.js';
import {
  claimFaucetGrant,
  dropFaucetGrant,
  type FaucetBounds,
  settleFaucetGrant,
} from '../../store/sandbox/faucet-grants.js';
import type { ApiContext } from '../context.js';
import { mintTokens } from './mint-tokens.js';

export interface FaucetRequest {
  readonly to: string;
  /** Who asks: the rate limit's client key (an IP, or an IPv6 /64). */
  readonly client: string;
  readonly amount: bigint;
}

export type FaucetResult =
  | { readonly kind: 'sent'; readonly ticketId: string; readonly txid: string; readonly amount: bigint }
  | { readonly kind: 'over'; readonly bound: 'address' | 'client'; readonly retryAt: Date };

export async function faucetTokens(
  ctx: ApiContext,
  mintKey: Uint8Array,
  req: FaucetRequest,
  bounds: FaucetBounds,
): Promise<FaucetResult> {
  // A malformed address costs no grant.
  if (pubKeyHashOf(req.to) === null)
    throw new DomainError('INVALID_ADDRESS', `not a P2PKH address: ${req.to}`);
  const claim = await claimFaucetGrant(
    ctx.db,
    { address: req.to, client: req.client, amount: req.amount, now: ctx.now() },
    bounds,
  );
  if (claim.kind === 'over') return { kind: 'over', bound: claim.bound, retryAt: claim.retryAt };
  try {
    const { ticketId, txid } = await mintTokens(ctx, mintKey, { to: req.to, amount: req.amount });
    await settleFaucetGrant(ctx.db, claim.id, ticketId);
    return { kind: 'sent', ticketId, txid, amount: req.amount };
  } catch (err) {
    // A refusal sent nothing: the grant is given back. Any other failure (a connection lost
    // around the commit, say) may have sent the tokens: the grant stays counted.
    if (err instanceof DomainError) await dropFaucetGrant(ctx.db, claim.id);
    throw err;
  }
}
