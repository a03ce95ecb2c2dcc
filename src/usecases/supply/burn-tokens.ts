// Burning tokens: a service-built transfer out of an address the service holds (the mint
// treasury or the fee address) with one `"op":"burn"` output (counted in conservation, never
// spendable again) locked to the burn address, and the change back to the source.
import type { ApiContext } from '../context.js';
import { type PreparedTransaction, sendFromHeldAddress } from './send-from-held-address.js';

export type BurnSource = 'mint' | 'fee';

export interface BurnRequest {
  readonly from: BurnSource;
  readonly amount: bigint;
}

export interface BurnResult {
  readonly ticketId: string;
  readonly txid: string;
  readonly from: string;
}

/** Keys of the addresses a burn may come out of. */
export interface BurnKeys {
  readonly mint: Uint8Array;
  readonly fee: Uint8Array;
}

export async function burnTokens(
  ctx: ApiContext,
  keys: BurnKeys,
  req: BurnRequest,
  prepared?: PreparedTransaction,
): Promise<BurnResult> {
  const { token } = ctx;
  const from = req.from === 'mint' ? token.mintAddress : token.feeAddress;
  const key = req.from === 'mint' ? keys.mint : keys.fee;
  const result = await sendFromHeldAddress(
    ctx,
    {
      from,
      key,
      outputs: [{ op: 'burn', to: token.burnAddress, amount: req.amount }],
    },
    prepared,
  );
  return { ...result, from };
}
