// Issuing tokens: a transfer out of the mint address (the treasury), signed with the mint key
// the operator holds, through the same pipeline as every wallet's transfer.
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

export interface MintRequest {
  readonly to: string;
  readonly amount: bigint;
}

export interface MintResult {
  readonly ticketId: string;
  readonly txid: string;
}

export async function mintTokens(
  ctx: ServiceContext,
  mintKey: Uint8Array,
  req: MintRequest,
): Promise<MintResult> {
  const { token } = ctx;
  const ownerPkh = pubKeyHashOf(req.to);
  if (ownerPkh === null) throw new AppError('INVALID_ADDRESS', `not a P2PKH address: ${req.to}`);
  if (req.amount <= 0n) throw new AppError('INVALID_AMOUNT', 'the amount must be positive');

  const chosen: UnspentOutput[] = [];
  let total = 0n;
  for (let page = 1; total < req.amount; page++) {
    const outputs = await unspentOutputs(ctx.db, {
      addresses: [token.mintAddress],
      page,
      size: 100,
      order: 'asc',
    });
    if (outputs.length === 0)
      throw new AppError('INVALID_AMOUNT', `the treasury holds ${total}, less than ${req.amount}`);
    for (const o of outputs) {
      if (total >= req.amount) break;
      chosen.push(o);
      total += o.amount;
    }
  }
  const tx = new Transaction(1, [], [], 0);
  for (const o of chosen)
    tx.addInput({ sourceTXID: o.txid, sourceOutputIndex: o.vout, sequence: 0xffffffff });
  const output = (pkh: Uint8Array, amt: bigint) => ({
    satoshis: 1,
    lockingScript: lockingScriptOf(
      buildTokenScript({
        inscription: { op: 'transfer', id: token.tokenId, amt },
        ownerPkh: pkh,
        approver: token.approver,
      }),
    ),
  });
  tx.addOutput(output(ownerPkh, req.amount));
  if (total > req.amount) tx.addOutput(output(pubKeyHashOf(token.mintAddress)!, total - req.amount));
  signOwnerInputs(
    tx,
    chosen.map((o) => ({ lockingScript: o.script, satoshis: o.satoshis })),
    mintKey,
  );
  const { ticketId } = await submitTransfer(ctx, {
    raw: tx.toUint8Array(),
    callbackUrl: null,
    callbackSecretEnc: null,
    apiKeyId: null,
  });
  const txid = await ticketTxid(ctx, ticketId);
  const outcome = await broadcastTicket(ctx, txid.txid, txid.rawTx);
  if (outcome.kind === 'rejected') throw new AppError('BROADCAST_REJECTED', outcome.reason);
  return { ticketId, txid: txid.txid };
}

async function ticketTxid(ctx: ServiceContext, ticketId: string) {
  const rows = await ctx.db.query<{ txid: string; raw_tx: Uint8Array }>(
    'SELECT txid, raw_tx FROM tickets WHERE id = $1',
    [ticketId],
  );
  const row = rows[0];
  if (row === undefined) throw new Error(`ticket ${ticketId} not found after submission`);
  return { txid: row.txid, rawTx: row.raw_tx };
}
