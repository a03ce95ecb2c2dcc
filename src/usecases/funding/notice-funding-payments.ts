// On the embedded devnet, the tracker notices payments to the funding address by itself: the
// devnet lists its unspent outputs, so every output locked to the funding key that the store
// knows neither as a pool output nor as reserve is a payment, unless its transaction was
// signed by the funding key itself (a split or the deploy, broadcast but not yet recorded:
// those are the refill's and the deploy's to record). ARC lists no outputs: there the
// operator tells the service (record-funding-payment.ts).
import { hash160 } from '../../crypto/hash.js';
import { publicKeyOf } from '../../crypto/secp256k1.js';
import { readTransaction } from '../../domain/read-transaction.js';
import { bytesEqual, readChunks } from '../../domain/script-chunks.js';
import { buildP2pkhScript } from '../../domain/token-script.js';
import type { Logger } from '../../process/logger.js';
import type { Db } from '../../store/db/db.js';
import { recordedFundingOutpoints } from '../../store/funding/funding-pool.js';
import { addReserveOutputs, type ReserveOutput } from '../../store/funding/funding-reserve.js';

/** What the devnet offers for this: its unspent outputs (those locked by a script) and raw transactions. */
export interface OutputLister {
  utxos(lockedBy: Uint8Array): readonly {
    readonly txid: string;
    readonly vout: number;
    readonly satoshis: bigint;
    readonly lockingScript: Uint8Array;
  }[];
  rawTransaction(txid: string): Promise<Uint8Array | null>;
}

export interface NoticeDeps {
  readonly db: Db;
  readonly ledger: OutputLister;
  readonly fundingKey: Uint8Array;
  readonly now: () => Date;
  readonly log: Logger;
}

/** True when an input of `raw` is unlocked by `publicKey` (P2PKH: signature, then the key). */
function signedBy(raw: Uint8Array, publicKey: Uint8Array, txid: string): boolean {
  // The devnet's stored bytes (its journal and blocks on disk): a corrupted record throws a clear
  // error for the round instead of a parse that allocates until the process dies.
  const tx = readTransaction(raw, txid);
  return tx.inputs.some((input) => {
    const chunks = readChunks(input.unlockingScript?.toUint8Array() ?? new Uint8Array()) ?? [];
    const last = chunks[chunks.length - 1]?.data;
    return last !== undefined && bytesEqual(last, publicKey);
  });
}

/** Records the payments to the funding address found since the last look; returns them. */
export async function noticeFundingPayments(deps: NoticeDeps): Promise<ReserveOutput[]> {
  const publicKey = publicKeyOf(deps.fundingKey);
  const script = buildP2pkhScript(hash160(publicKey));
  // Asked by script: the devnet reads back from disk only the outputs locked by it (ADR 0017).
  const ours = deps.ledger
    .utxos(script)
    .filter((u) => bytesEqual(u.lockingScript, script) && u.satoshis > 0n);
  if (ours.length === 0) return [];
  const txids = [...new Set(ours.map((u) => u.txid))];
  const seen = await recordedFundingOutpoints(deps.db, txids);
  const fresh = ours.filter((u) => !seen.has(`${u.txid}:${u.vout}`));
  const payments: ReserveOutput[] = [];
  for (const txid of new Set(fresh.map((u) => u.txid))) {
    const raw = await deps.ledger.rawTransaction(txid);
    if (raw === null || signedBy(raw, publicKey, txid)) continue;
    payments.push(
      ...fresh.filter((u) => u.txid === txid).map((u) => ({ txid, vout: u.vout, satoshis: u.satoshis })),
    );
  }
  if (payments.length === 0) return [];
  const added = await addReserveOutputs(deps.db, payments, 'payment', deps.now());
  for (const o of added)
    deps.log.info({ txid: o.txid, vout: o.vout, satoshis: o.satoshis.toString() }, 'funding payment noticed');
  return added;
}
