// Issuing tokens: a transfer out of the mint address (the treasury), signed with the mint key
// the operator holds, through the same pipeline as every wallet's transfer.
import { pubKeyHashOf } from '../../domain/address.js';
import { DomainError } from '../../domain/domain-error.js';
import { frozenRecipientRefusal } from '../../domain/freeze.js';
import { frozenAmong } from '../../store/controls/freeze-store.js';
import type { ApiContext } from '../context.js';
import { allowanceSpending, checkAllowance } from '../controls/allowances.js';
import {
  type HeldTransferResult,
  type PreparedTransaction,
  sendFromHeldAddress,
} from './send-from-held-address.js';

export interface MintRequest {
  readonly to: string;
  readonly amount: bigint;
  /**
   * The admin key asking (issue 32): its mint allowance, when it has one, is spent by this mint
   * (usecases/controls/allowances.ts); absent: the service's own mints (faucet, reissues).
   */
  readonly minter?: string;
}

export type MintResult = HeldTransferResult;

/**
 * Refuses a mint no issuer means: nothing, to no P2PKH address, or to one of the token's own
 * addresses (into the burn address it would count as burned, so a mint-scoped key could burn;
 * into the treasury or the fee address it mints to the service itself). Checked before a mint is
 * held back for approvals too, so that no such proposal is put to the approvers.
 */
export function checkMintRequest(token: ApiContext['token'], to: string, amount: bigint): void {
  if (amount <= 0n) throw new DomainError('INVALID_AMOUNT', 'a mint must be of more than 0 tokens');
  checkMintRecipient(token, to);
}

/** The recipient half of checkMintRequest (a seizure's reissue checks it before it seizes). */
export function checkMintRecipient(token: ApiContext['token'], to: string): void {
  if (pubKeyHashOf(to) === null) throw new DomainError('INVALID_ADDRESS', `not a P2PKH address: ${to}`);
  const own = new Map([
    [token.burnAddress, 'the burn address'],
    [token.mintAddress, 'the treasury (mint address)'],
    [token.feeAddress, 'the fee address'],
  ]).get(to);
  if (own !== undefined) throw new DomainError('INVALID_ADDRESS', `a mint cannot pay ${own}: ${to}`);
}

export async function mintTokens(
  ctx: ApiContext,
  mintKey: Uint8Array,
  req: MintRequest,
  prepared?: PreparedTransaction,
): Promise<MintResult> {
  checkMintRequest(ctx.token, req.to, req.amount);
  // An issuer puts no new tokens into a frozen address.
  const frozen = frozenRecipientRefusal(req.to, await frozenAmong(ctx.db, [req.to]));
  if (frozen !== null) throw new DomainError(frozen.code, frozen.detail);
  const held = {
    from: ctx.token.mintAddress,
    key: mintKey,
    outputs: [{ op: 'transfer' as const, to: req.to, amount: req.amount }],
  };
  if (req.minter === undefined) return sendFromHeldAddress(ctx, held, prepared);
  // A retry with an earlier attempt's transaction is charged when it is submitted (spent before:
  // nothing more); a refusal up front would deny a mint that may have committed.
  if (((await prepared?.earlier()) ?? null) === null) await checkAllowance(ctx, req.minter, req.amount);
  const spending = allowanceSpending(ctx, req.minter, req.amount, prepared);
  let minted: MintResult;
  try {
    minted = await sendFromHeldAddress(ctx, held, spending);
  } catch (err) {
    // A refusal moved no token: the allowance it spent is given back. Any other failure (the
    // ledger down, a crash) may have committed the mint: what it spent stays spent.
    if (err instanceof DomainError) await spending.refund();
    throw err;
  }
  // Another attempt of the same mint that failed may give the spend back from now on: the mark
  // stops it, or charges again a spend it gave back already.
  try {
    await spending.committed();
  } catch (err) {
    // The mint stands either way: a failed mark leaves the spend as a refund found it.
    ctx.log.error({ err, txid: minted.txid }, "marking a mint's allowance spend committed failed");
  }
  return minted;
}
