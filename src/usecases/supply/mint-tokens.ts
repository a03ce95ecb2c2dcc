// Issuing tokens: a transfer out of the mint address (the treasury), signed with the mint key
// the operator holds, through the same pipeline as every wallet's transfer.
import { pubKeyHashOf } from '../../domain/address.js';
import { DomainError } from '../../domain/domain-error.js';
import { frozenRecipientRefusal } from '../../domain/freeze.js';
import { frozenAmong } from '../../store/controls/freeze-store.js';
import type { ApiContext } from '../context.js';
import {
  type HeldTransferResult,
  type PreparedTransaction,
  sendFromHeldAddress,
} from './send-from-held-address.js';

export interface MintRequest {
  readonly to: string;
  readonly amount: bigint;
}

export type MintResult = HeldTransferResult;

export async function mintTokens(
  ctx: ApiContext,
  mintKey: Uint8Array,
  req: MintRequest,
  prepared?: PreparedTransaction,
): Promise<MintResult> {
  if (pubKeyHashOf(req.to) === null)
    throw new DomainError('INVALID_ADDRESS', `not a P2PKH address: ${req.to}`);
  // An issuer puts no new tokens into a frozen address.
  const frozen = frozenRecipientRefusal(req.to, await frozenAmong(ctx.db, [req.to]));
  if (frozen !== null) throw new DomainError(frozen.code, frozen.detail);
  return sendFromHeldAddress(
    ctx,
    {
      from: ctx.token.mintAddress,
      key: mintKey,
      outputs: [{ op: 'transfer', to: req.to, amount: req.amount }],
    },
    prepared,
  );
}
