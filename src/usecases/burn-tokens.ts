// Burning tokens: a service-built transfer out of an address the service holds (the mint
// treasury or the fee address) with one `"op":"burn"` output (counted in conservation, never
// spendable again) locked to the burn address, and the change back to the source.
import { Transaction } from '@bsv/sdk';
import { lockingScriptOf } from '../crypto/script-objects.js';
import { signOwnerInputs } from '../crypto/sign-owner.js';
import { pubKeyHashOf } from '../domain/address.js';
import { buildTokenScript } from '../domain/token-script.js';
import { AppError } from '../errors/registry.js';
import { type UnspentOutput, unspentOutputs } from '../store/wallet-queries.js';
import { broadcastTicket } from './broadcast-ticket.js';
import type { ServiceContext } from './context.js';
import { submitTransfer } from './submit-transfer.js';

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

export async function burnTokens(ctx: ServiceContext, keys: BurnKeys, req: BurnRequest): Promise<BurnResult> {
  const { token } = ctx;
  if (req.amount <= 0n) throw new AppError('INVALID_AMOUNT', 'the amount must be positive');
  const from = req.from === 'mint' ? token.mintAddress : token.feeAddress;
  const key = req.from === 'mint' ? keys.mint : keys.fee;
  const chosen = await pickOutputs(ctx, from, req.amount);
  const total = chosen.reduce((sum, o) => sum + o.amount, 0n);

  const tx = new Transaction(1, [], [], 0);
  for (const o of chosen)
    tx.addInput({ sourceTXID: o.txid, sourceOutputIndex: o.vout, sequence: 0xffffffff });
  const output = (op: 'transfer' | 'burn', address: string, amt: bigint) => ({
    satoshis: 1,
    lockingScript: lockingScriptOf(
      buildTokenScript({
        inscription: { op, id: token.tokenId, amt },
        ownerPkh: pubKeyHashOf(address)!,
        approver: token.approver,
      }),
    ),
  });
  tx.addOutput(output('burn', token.burnAddress, req.amount));
  if (total > req.amount) tx.addOutput(output('transfer', from, total - req.amount));
  signOwnerInputs(
    tx,
    chosen.map((o) => ({ lockingScript: o.script, satoshis: o.satoshis })),
    key,
  );
  const { ticketId } = await submitTransfer(ctx, {
    raw: tx.toUint8Array(),
    callbackUrl: null,
    callbackSecretEnc: null,
    apiKeyId: null,
  });
  const rows = await ctx.db.query<{ txid: string; raw_tx: Uint8Array }>(
    'SELECT txid, raw_tx FROM tickets WHERE id = $1',
    [ticketId],
  );
  const row = rows[0];
  if (row === undefined) throw new Error(`ticket ${ticketId} not found after submission`);
  const outcome = await broadcastTicket(ctx, row.txid, row.raw_tx);
  if (outcome.kind === 'rejected') throw new AppError('BROADCAST_REJECTED', outcome.reason);
  return { ticketId, txid: row.txid, from };
}

async function pickOutputs(ctx: ServiceContext, address: string, amount: bigint): Promise<UnspentOutput[]> {
  const chosen: UnspentOutput[] = [];
  let total = 0n;
  for (let page = 1; total < amount; page++) {
    const outputs = await unspentOutputs(ctx.db, { addresses: [address], page, size: 100, order: 'asc' });
    if (outputs.length === 0)
      throw new AppError('INVALID_AMOUNT', `${address} holds ${total}, less than ${amount}`);
    for (const o of outputs) {
      if (total >= amount) break;
      chosen.push(o);
      total += o.amount;
    }
  }
  return chosen;
}
