// SPV: the proofs a wallet checks for itself (docs/clients.md, "Proofs a wallet can check").
// A mined transaction's merkle path (BUMP, BRC-74) comes from the ledger (ARC's merklePath, the
// devnet's blocks) the first time it is asked for and is kept per transaction and block; the
// block the change feed says the transaction is in now chooses the path, so after a reorg the
// path of the new block is fetched and served. A transaction as Atomic BEEF (BRC-95) carries
// every ancestor back to mined ones (token inputs and the funding input alike), each mined one
// with its path; a funding split's bytes and path are kept too, so a BEEF asks the ledger only
// of what the service has not seen mined, and of a split whose block is not final yet.
import { MerklePath, type Transaction } from '@bsv/sdk';
import { readTransaction } from '../../domain/read-transaction.js';
import { fundingTransaction } from '../../store/funding/funding-pool.js';
import {
  currentProofOf,
  forgetBlock,
  proofIn,
  recordPlaces,
  type StoredProof,
  saveProof,
} from '../../store/proofs/merkle-proofs.js';
import type { ServiceContext } from '../context.js';
import { isFinal, tipHeightNow } from '../track/tracker-timing.js';

export interface TxProof {
  readonly txid: string;
  readonly blockHash: string;
  readonly height: number;
  /** BUMP, hex. */
  readonly merklePath: string;
  readonly merkleRoot: string;
}

/** Ancestors gathered for one BEEF at most: a wallet's chain of unmined transfers is short. */
const MAX_TRANSACTIONS = 2_000;

export class SpvError extends Error {
  constructor(
    readonly kind: 'not-found' | 'too-deep' | 'failed',
    message: string,
  ) {
    super(message);
  }
}

/**
 * The merkle path of `txid` if it is mined: from the store for the block the feed names,
 * else from the ledger (kept). Null when it is not mined (as far as the ledger knows).
 */
export async function proofOf(
  ctx: ServiceContext,
  txid: string,
  knownBlock?: string | null,
): Promise<TxProof | null> {
  const block =
    knownBlock === undefined ? (await recordPlaces(ctx.db, [txid])).get(txid)?.blockHash : knownBlock;
  // A record of the feed: the block it names (the tracker follows it through reorgs); one not
  // mined yet as the feed has it may be by now.
  if (block !== undefined) {
    const kept = block === null ? null : await proofIn(ctx.db, txid, block);
    return kept === null ? fromLedger(ctx, txid, null) : proofFrom(kept);
  }
  // Another transaction (a funding split): no tracker follows its block, so a kept path is served
  // without asking the ledger only once its block is final; before, a reorg may have replaced it.
  const kept = await currentProofOf(ctx.db, txid);
  if (kept !== null && isFinal(ctx.tracker, await tipHeightNow(ctx.ledger), kept.height))
    return proofFrom(kept);
  return fromLedger(ctx, txid, kept);
}

function proofFrom(kept: StoredProof): TxProof {
  const hex = Buffer.from(kept.bump).toString('hex');
  return {
    txid: kept.txid,
    blockHash: kept.blockHash,
    height: kept.height,
    merklePath: hex,
    merkleRoot: MerklePath.fromHex(hex).computeRoot(kept.txid),
  };
}

/**
 * The path the ledger gives for `txid` now, kept; null when it is not mined. A kept path in a
 * block the ledger no longer names was in a block that left the chain: that block's header is
 * no longer current.
 */
async function fromLedger(
  ctx: ServiceContext,
  txid: string,
  kept: StoredProof | null,
): Promise<TxProof | null> {
  const status = await ctx.ledger.status(txid);
  // A ledger that does not know it (ARC forgets, or is behind) says nothing of its block: the
  // kept path stands.
  if (kept !== null && status.kind === 'unknown') return proofFrom(kept);
  const minedIn = status.kind === 'mined' && status.merklePath !== '' ? status : null;
  if (kept !== null && kept.blockHash !== minedIn?.blockHash) await forgetBlock(ctx.db, kept.blockHash);
  if (minedIn === null) return null;
  if (kept?.blockHash === minedIn.blockHash) return proofFrom(kept);
  const path = MerklePath.fromHex(minedIn.merklePath);
  const merkleRoot = path.computeRoot(txid);
  await saveProof(
    ctx.db,
    {
      txid,
      blockHash: minedIn.blockHash,
      height: minedIn.height,
      bump: Uint8Array.from(Buffer.from(minedIn.merklePath, 'hex')),
    },
    merkleRoot,
  );
  return {
    txid,
    blockHash: minedIn.blockHash,
    height: minedIn.height,
    merklePath: minedIn.merklePath,
    merkleRoot,
  };
}

/** `txid` with its ancestors back to mined ones, each mined one carrying its merkle path. */
export async function provenTransaction(ctx: ServiceContext, txid: string): Promise<Transaction> {
  const root = txid.toLowerCase();
  const made = new Map<string, Transaction>();
  const build = async (id: string): Promise<Transaction> => {
    const done = made.get(id);
    if (done !== undefined) return done;
    if (made.size >= MAX_TRANSACTIONS)
      throw new SpvError('too-deep', `more than ${MAX_TRANSACTIONS} unmined ancestors`);
    const place = (await recordPlaces(ctx.db, [id])).get(id);
    // A failed transaction (or one spending from it) will never be mined: its BEEF would verify
    // all the same, and a wallet paid with it would take a double spend for a payment.
    if (place?.failed === true)
      throw new SpvError(
        'failed',
        `transaction ${id} failed: it will never be mined${id === root ? '' : ` (an ancestor of ${root})`}`,
      );
    // A funding split or an operator's payment is no record of the feed; its bytes are kept apart
    // (ARC serves a raw transaction only from the memory of the process that broadcast it).
    const raw = place?.raw ?? (await fundingTransaction(ctx.db, id)) ?? (await ctx.ledger.rawTransaction(id));
    if (raw === null) throw new SpvError('not-found', `transaction ${id} is not known`);
    // Stored or the ledger's bytes: a corrupted record is a clear error (the route's 500), not a
    // parse that allocates for counts the bytes cannot hold until the process dies.
    const tx = readTransaction(raw, id);
    made.set(id, tx);
    const proof = await proofOf(ctx, id, place === undefined ? undefined : place.blockHash);
    if (proof !== null) {
      tx.merklePath = MerklePath.fromHex(proof.merklePath);
      return tx;
    }
    for (const input of tx.inputs) input.sourceTransaction = await build(input.sourceTXID!);
    return tx;
  };
  return build(root);
}

/** Atomic BEEF (BRC-95) of `txid`, hex. */
export async function atomicBeefOf(ctx: ServiceContext, txid: string): Promise<string> {
  const tx = await provenTransaction(ctx, txid);
  return Buffer.from(tx.toAtomicBEEF()).toString('hex');
}
