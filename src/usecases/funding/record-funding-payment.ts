// The operator's payment into the funding pool: any transaction paying the funding address.
// The operator names it by txid (POST /v2/admin/funding/payments, `tokenproxy fund --txid`);
// the raw transaction comes from the ledger, or from the operator when the ledger serves no raw
// transactions (ARC serves only those this process broadcast) and then only when the ledger
// knows the txid. Every output paying the funding key's P2PKH script becomes reserve, which the
// pool refill splits; the transaction's bytes are kept for SPV. Recording is idempotent: an output already recorded (as reserve or as a
// pool output) is not recorded again.
import type { Transaction } from '@bsv/sdk';
import { txidOf } from '../../crypto/txid.js';
import { DomainError } from '../../domain/domain-error.js';
import { readTransaction, UnreadableTransactionError } from '../../domain/read-transaction.js';
import { bytesEqual } from '../../domain/script-chunks.js';
import { type Ledger, LedgerUnavailableError } from '../../ledger/port.js';
import { holdTransactionLock } from '../../store/db/advisory-lock.js';
import type { Db } from '../../store/db/db.js';
import { keepFundingTransaction, poolVoutsOf } from '../../store/funding/funding-pool.js';
import { addReserveOutputs, type ReserveOutput } from '../../store/funding/funding-reserve.js';
import { FUNDING_SPLIT_LOCK, splitUnderWay } from './pool-refill.js';

export interface FundingPaymentDeps {
  readonly db: Db;
  readonly ledger: Ledger;
  /** The funding key's P2PKH locking script. */
  readonly fundingScript: Uint8Array;
  readonly now: () => Date;
}

export interface FundingPaymentResult {
  readonly txid: string;
  /** Every output of the transaction paying the funding address. */
  readonly outputs: readonly ReserveOutput[];
  /** Those recorded now (empty when the payment had been recorded before). */
  readonly recorded: readonly ReserveOutput[];
}

/** Outputs of `raw` locked to `script` (the transaction parsed whole, trailing bytes refused). */
export function outputsPaying(raw: Uint8Array, script: Uint8Array): { vout: number; satoshis: bigint }[] {
  let tx: Transaction;
  try {
    tx = readTransaction(raw);
  } catch (err) {
    const reason =
      err instanceof UnreadableTransactionError
        ? err.reason
        : err instanceof Error
          ? err.message
          : String(err);
    throw new DomainError('INVALID_TX', `transaction does not parse: ${reason}`);
  }
  return tx.outputs.flatMap((output, vout) =>
    bytesEqual(output.lockingScript.toUint8Array(), script)
      ? [{ vout, satoshis: BigInt(output.satoshis ?? 0) }]
      : [],
  );
}

async function rawOf(ledger: Ledger, txid: string, given: Uint8Array | undefined): Promise<Uint8Array> {
  try {
    const known = await ledger.rawTransaction(txid);
    if (known !== null) return known;
    if (given === undefined) throw await noRawTransaction(ledger, txid);
    if (txidOf(given) !== txid) throw new DomainError('INVALID_TX', `rawtx is not transaction ${txid}`);
    const status = await ledger.status(txid);
    if (status.kind !== 'mempool' && status.kind !== 'mined') {
      throw new DomainError(
        'TX_NOT_FOUND',
        `the ledger does not hold transaction ${txid} (${status.kind}): broadcast it first`,
      );
    }
    return given;
  } catch (err) {
    if (err instanceof LedgerUnavailableError) throw new DomainError('LEDGER_UNAVAILABLE', err.message);
    throw err;
  }
}

/**
 * Why no raw transaction came, in words an operator acts on: a ledger that holds the transaction
 * but serves no raw transactions (ARC serves only those this process broadcast) needs the raw
 * transaction given (`--rawtx`); one that does not hold it needs it broadcast first.
 */
async function noRawTransaction(ledger: Ledger, txid: string): Promise<DomainError> {
  const status = await ledger.status(txid);
  if (status.kind === 'mempool' || status.kind === 'mined') {
    const where = status.kind === 'mined' ? `mined at height ${status.height}` : 'in its mempool';
    return new DomainError(
      'RAWTX_REQUIRED',
      `the ledger holds transaction ${txid} (${where}) but serves no raw transactions (ARC): ` +
        `give its raw transaction in hex (tokenproxy fund --txid ${txid} --rawtx HEX)`,
    );
  }
  return new DomainError(
    'TX_NOT_FOUND',
    `the ledger does not know transaction ${txid} (${status.kind}): broadcast it first, then record it` +
      ' (with --rawtx HEX when the ledger is ARC)',
  );
}

export async function recordFundingPayment(
  deps: FundingPaymentDeps,
  txid: string,
  rawtx?: Uint8Array,
): Promise<FundingPaymentResult> {
  const raw = await rawOf(deps.ledger, txid, rawtx);
  const paying = outputsPaying(raw, deps.fundingScript)
    .filter((o) => o.satoshis > 0n)
    .map((o) => ({ txid, ...o }));
  if (paying.length === 0) {
    throw new DomainError('NO_FUNDING_OUTPUT', `transaction ${txid} pays nothing to the funding address`);
  }
  const recorded = await deps.db.transaction(async (q) => {
    // The pool's own split, sent and not yet recorded, is the keeper's to record: taken as a
    // payment, its pool outputs would be reserve too, and a later split would spend outputs
    // transfers hold.
    await holdTransactionLock(q, FUNDING_SPLIT_LOCK);
    if ((await splitUnderWay(q)) === txid)
      throw new DomainError(
        'FUNDING_SPLIT_UNDER_WAY',
        `transaction ${txid} is the funding pool's own split, not yet recorded: the pool keeper records it on its next pass`,
      );
    // Its bytes are kept: a split of it may be spent by transfers before either is mined, and
    // their Atomic BEEF reaches back through both (ARC serves no raw transaction it did not take
    // from this process).
    await keepFundingTransaction(q, txid, raw);
    // The pool's own outputs (a split's) are never reserve.
    const inPool = await poolVoutsOf(q, txid);
    return addReserveOutputs(
      q,
      paying.filter((o) => !inPool.has(o.vout)),
      'payment',
      deps.now(),
    );
  });
  return { txid, outputs: paying, recorded };
}
