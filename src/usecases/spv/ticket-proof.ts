// The merkle path a MINED ticket's answer carries: read (or fetched from the ledger once and
// kept) by spv-proofs.ts. A ledger that cannot answer now leaves it out of this answer rather
// than failing the ticket's: the path comes with a later look.
import type { ServiceContext } from '../context.js';
import { proofOf } from './spv-proofs.js';

export async function minedTicketProof(ctx: ServiceContext, txid: string): Promise<string | null> {
  try {
    return (await proofOf(ctx, txid))?.merklePath ?? null;
  } catch (err) {
    ctx.log.warn({ err, txid }, 'the merkle path of a MINED ticket could not be read');
    return null;
  }
}
