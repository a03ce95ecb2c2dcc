// The funding pool: small P2PKH outputs of the funding key, one spent whole (to the miner) by
// each transfer. Reserve outputs (store/funding/funding-reserve.ts), largest first, are split into the
// pool's denominations when the pool runs low. A split's signed bytes are kept before they are
// sent, so that a retry after a crash sends the same transaction again and records what the
// network took, whatever the fee rate or the reserve is by then.
import { Transaction } from '@bsv/sdk';
import { hash160 } from '../../crypto/hash.js';
import { lockingScriptOf } from '../../crypto/script-objects.js';
import { publicKeyOf } from '../../crypto/secp256k1.js';
import { txidOf } from '../../crypto/txid.js';
import { networkFee } from '../../domain/network-fee.js';
import { readTransaction } from '../../domain/read-transaction.js';
import { bytesEqual } from '../../domain/script-chunks.js';
import { signP2pkhInputs } from '../../domain/sign-p2pkh.js';
import { type Outpoint, spentOutpoints } from '../../domain/spent-outpoints.js';
import { buildP2pkhScript } from '../../domain/token-script.js';
import type { Ledger } from '../../ledger/port.js';
import type { Logger } from '../../process/logger.js';
import { holdTransactionLock } from '../../store/db/advisory-lock.js';
import type { Db, Queryable } from '../../store/db/db.js';
import {
  addPoolOutputs,
  availableFundingUpTo,
  keepFundingTransaction,
} from '../../store/funding/funding-pool.js';
import {
  addReserveOutputs,
  availableReserve,
  doubtReserveOutputs,
  type ReserveOutput,
  type ReserveRecord,
  settleReserveOutputs,
} from '../../store/funding/funding-reserve.js';
import { deleteSetting, readSetting, writeSetting } from '../../store/settings.js';

export interface Denomination {
  readonly satoshis: bigint;
  readonly count: number;
}

/** Most reserve outputs one split spends. */
export const MAX_SPLIT_INPUTS = 50;
/** Least change a split leaves in the reserve. */
const MIN_CHANGE = 1000n;

const splitSize = (inputs: number, outputs: number) => 10 + 148 * inputs + (outputs + 1) * 34 + 9;

/** Outputs of the default split: 400 of the smallest denomination, 60 and 10 of the larger. */
export const DEFAULT_SPLIT_OUTPUTS = 470;
const LARGER_OUTPUTS = 70;

/**
 * Denominations sized to the fee rate: a typical transfer (~1.5 kB) costs `unit`. A split of
 * `outputs` (as the keeper sizes it to demand) makes more or fewer of the smallest, which
 * typical transfers use; the 70 larger ones stay.
 */
export function defaultDenominations(satoshisPerKb: bigint, outputs = DEFAULT_SPLIT_OUTPUTS): Denomination[] {
  const unit = networkFee(1500, satoshisPerKb) + 2n;
  return [
    { satoshis: unit * 2n, count: Math.max(1, outputs - LARGER_OUTPUTS) },
    { satoshis: unit * 10n, count: 60 },
    { satoshis: unit * 100n, count: 10 },
  ];
}

/** The settings key of the split under way: its signed bytes, hex. */
const SPLIT_INTENT = 'funding_split_intent';
interface SplitIntent {
  readonly rawTx: string;
  /** Kept by an earlier version, which recorded the split's largest input and size, not its bytes. */
  readonly input?: string;
  readonly outputs?: number;
}

/**
 * Splits are made one at a time across the processes on one database: a tracker overlapping
 * another during a deploy resumes the split under way rather than sending a rival one.
 */
export const FUNDING_SPLIT_LOCK = 7_364_821_013;

export interface RefillDeps {
  readonly db: Db;
  readonly ledger: Ledger;
  readonly fundingKey: Uint8Array;
  readonly feeRate: () => Promise<bigint>;
  readonly now: () => Date;
  readonly log: Logger;
}

/**
 * Splits reserve outputs (largest first, as many as the split needs) into the pool, `outputs` of
 * them, when fewer than `lowWater` outputs are available; first, whatever the level, sends again
 * and records a split kept but not recorded (a crash, a ledger out of reach). A split of one
 * reserve output the ledger refuses for good marks it `refused` (spent elsewhere, say) so that the
 * next refill tries others; a split of several marks them doubted, each tried alone next.
 * Answers the split's txid, or null when none was sent.
 */
export async function refillFundingPool(
  deps: RefillDeps,
  lowWater: number,
  wanted = DEFAULT_SPLIT_OUTPUTS,
): Promise<string | null> {
  const raw = (await keptSplit(deps.db)) ?? (await newSplit(deps, lowWater, wanted));
  return raw === null ? null : sendSplit(deps, raw);
}

const bytesOf = (intent: SplitIntent | null): Uint8Array | null =>
  typeof intent?.rawTx === 'string' ? Uint8Array.from(Buffer.from(intent.rawTx, 'hex')) : null;

const keptSplit = async (q: Queryable) => bytesOf(await readSetting<SplitIntent>(q, SPLIT_INTENT));

/**
 * The txid of the split kept and not yet recorded (a crash, a lost answer), or null. Read under
 * FUNDING_SPLIT_LOCK, it stays so until the holder's transaction ends: only the keeper records
 * it (its outputs but the last join the pool).
 */
export async function splitUnderWay(q: Queryable): Promise<string | null> {
  const kept = await keptSplit(q);
  return kept === null ? null : txidOf(kept);
}

/** Builds, signs and keeps a split when the pool is low and no split is kept; its bytes. */
async function newSplit(deps: RefillDeps, lowWater: number, wanted: number): Promise<Uint8Array | null> {
  if ((await availableFundingUpTo(deps.db, lowWater)) >= lowWater) return null;
  const rate = await deps.feeRate();
  return deps.db.transaction(async (tx) => {
    await holdTransactionLock(tx, FUNDING_SPLIT_LOCK);
    const intent = await readSetting<SplitIntent>(tx, SPLIT_INTENT);
    const kept = bytesOf(intent);
    if (kept !== null) return kept;
    // Another process's split may have filled the pool while this one waited for its turn.
    if ((await availableFundingUpTo(tx, lowWater)) >= lowWater) return null;
    const reserve = await availableReserve(tx);
    if (reserve.length === 0) return null;
    // An earlier version's crash between sending and recording: the same size, as it did.
    const first = `${reserve[0]!.txid}_${reserve[0]!.vout}`;
    const outputs = intent?.input === first && typeof intent.outputs === 'number' ? intent.outputs : wanted;
    const raw = splitOf(deps, reserve, rate, outputs);
    if (raw !== null)
      await writeSetting(
        tx,
        SPLIT_INTENT,
        { rawTx: Buffer.from(raw).toString('hex') } satisfies SplitIntent,
        deps.now(),
      );
    return raw;
  });
}

/**
 * The next split, signed; null when the reserve cannot pay one. A doubted reserve output (one of
 * several inputs of a split the ledger refused for good: which one was spent elsewhere is not
 * known) is tried alone first, in a split of as many pool outputs as it pays, so that the
 * ledger's answer is about it alone. The others are split as they come, largest first.
 */
function splitOf(
  deps: RefillDeps,
  reserve: readonly ReserveRecord[],
  rate: bigint,
  outputs: number,
): Uint8Array | null {
  const pool = defaultDenominations(rate, outputs).flatMap((d) =>
    Array.from({ length: d.count }, () => d.satoshis),
  );
  for (const doubted of reserve.filter(isDoubted)) {
    const fitted = fittedPool(doubted.satoshis, pool, rate);
    if (fitted !== null) return signedSplit(deps, [doubted], fitted.pool, fitted.change);
  }
  const chosen: ReserveOutput[] = [];
  const poolTotal = pool.reduce((a, b) => a + b, 0n);
  let total = 0n;
  let change = 0n;
  for (const output of reserve.filter((o) => !isDoubted(o)).slice(0, MAX_SPLIT_INPUTS)) {
    chosen.push(output);
    total += output.satoshis;
    change = total - poolTotal - networkFee(splitSize(chosen.length, pool.length), rate);
    if (change >= MIN_CHANGE) break;
  }
  if (change < MIN_CHANGE) {
    deps.log.warn(
      { reserve: total.toString(), outputs: chosen.length },
      'funding reserve exhausted: the operator must add funds',
    );
    return null;
  }
  return signedSplit(deps, chosen, pool, change);
}

/** Available, but in a refused split with others (its `error` says why that split was refused). */
const isDoubted = (o: ReserveRecord): boolean => o.error !== null;

/** The most of `pool` (smallest first) one input of `satoshis` pays, and its change; null: not even none. */
function fittedPool(
  satoshis: bigint,
  pool: readonly bigint[],
  rate: bigint,
): { pool: bigint[]; change: bigint } | null {
  let paid = pool.reduce((a, b) => a + b, 0n);
  for (let count = pool.length; count >= 0; count--) {
    const change = satoshis - paid - networkFee(splitSize(1, count), rate);
    if (change >= MIN_CHANGE) return { pool: pool.slice(0, count), change };
    if (count > 0) paid -= pool[count - 1]!;
  }
  return null;
}

/** The split of `inputs` into `pool` and `change`, all to the funding key, signed. */
function signedSplit(
  deps: RefillDeps,
  inputs: readonly ReserveOutput[],
  pool: readonly bigint[],
  change: bigint,
): Uint8Array {
  const script = fundingScriptOf(deps.fundingKey);
  const tx = new Transaction(1, [], [], 0);
  for (const input of inputs)
    tx.addInput({ sourceTXID: input.txid, sourceOutputIndex: input.vout, sequence: 0xffffffff });
  for (const satoshis of pool)
    tx.addOutput({ satoshis: Number(satoshis), lockingScript: lockingScriptOf(script) });
  tx.addOutput({ satoshis: Number(change), lockingScript: lockingScriptOf(script) });
  signP2pkhInputs(
    tx,
    inputs.map((input) => ({ lockingScript: script, satoshis: input.satoshis })),
    deps.fundingKey,
  );
  return tx.toUint8Array();
}

const fundingScriptOf = (fundingKey: Uint8Array) => buildP2pkhScript(hash160(publicKeyOf(fundingKey)));

/** A kept split as its own bytes say: what recording it writes. */
interface SplitParts {
  readonly raw: Uint8Array;
  readonly txid: string;
  readonly inputs: readonly Outpoint[];
  /** Every output's satoshis but the last (the change), in order. */
  readonly pool: readonly bigint[];
  readonly change: bigint;
  /** The funding key's script, and whether every output pays it. */
  readonly script: Uint8Array;
  readonly paysFundingKey: boolean;
}

function splitParts(raw: Uint8Array, script: Uint8Array): SplitParts {
  const inputs = spentOutpoints(raw);
  if (inputs === null) throw new Error('the kept funding split is not a whole transaction');
  // Read back from the settings table: parsed only once its layout fits (spentOutpoints checked it
  // too; readTransaction keeps the guard at the parse itself).
  const outputs = readTransaction(raw).outputs;
  return {
    raw,
    txid: txidOf(raw),
    inputs,
    pool: outputs.slice(0, -1).map((o) => BigInt(o.satoshis!)),
    change: BigInt(outputs.at(-1)!.satoshis!),
    script,
    paysFundingKey: outputs.every((o) => bytesEqual(Uint8Array.from(o.lockingScript.toBinary()), script)),
  };
}

/** Broadcasts a kept split and records what the ledger answered; its txid once accepted. */
async function sendSplit(deps: RefillDeps, raw: Uint8Array): Promise<string> {
  const split = splitParts(raw, fundingScriptOf(deps.fundingKey));
  const { txid } = split;
  const result = await deps.ledger.broadcast(raw);
  if (!result.ok) {
    if (!result.retryable && (await settleSplit(deps, split, { refused: result.reason })))
      deps.log.error(
        { txid, inputs: split.inputs.map((o) => `${o.txid}_${o.vout}`), reason: result.reason },
        split.inputs.length === 1
          ? 'funding split refused by the ledger: its reserve output is marked refused'
          : 'funding split refused by the ledger: each of its reserve outputs is tried alone next',
      );
    throw new Error(`funding split refused by the ledger: ${result.reason}`);
  }
  if (await settleSplit(deps, split, { accepted: true }))
    deps.log.info(
      { txid, inputs: split.inputs.length, outputs: split.pool.length, reserve: split.change.toString() },
      'funding pool refilled',
    );
  return txid;
}

/**
 * Records the kept split as the ledger answered it, from its own bytes: accepted, its outputs but
 * the last join the pool, the last (change) the reserve, and its inputs are spent; refused, its
 * inputs are marked refused. False when another process recorded it first (the kept split is no
 * longer this one).
 */
async function settleSplit(
  deps: RefillDeps,
  split: SplitParts,
  answer: { readonly accepted: true } | { readonly refused: string },
): Promise<boolean> {
  const { txid, inputs } = split;
  return deps.db.transaction(async (tx) => {
    await holdTransactionLock(tx, FUNDING_SPLIT_LOCK);
    const kept = await keptSplit(tx);
    if (kept === null || txidOf(kept) !== txid) return false;
    if ('refused' in answer) {
      // Alone, the input is what the ledger refused; among others, any of them may be.
      if (inputs.length === 1)
        await settleReserveOutputs(tx, inputs, { state: 'refused', error: answer.refused });
      else await doubtReserveOutputs(tx, inputs, answer.refused);
    } else {
      if (!split.paysFundingKey)
        throw new Error(`the kept funding split ${txid} pays a script other than the funding key's`);
      await addPoolOutputs(tx, txid, split.pool, split.script);
      await keepFundingTransaction(tx, txid, split.raw);
      await settleReserveOutputs(tx, inputs, { state: 'spent', spentBy: txid });
      await addReserveOutputs(
        tx,
        [{ txid, vout: split.pool.length, satoshis: split.change }],
        'split',
        deps.now(),
      );
    }
    await deleteSetting(tx, SPLIT_INTENT);
    return true;
  });
}
