// The funding pool: small P2PKH outputs of the funding key, one spent whole (to the miner) by
// each transfer. Reserve outputs (store/funding/funding-reserve.ts), largest first, are split into the
// pool's denominations when the pool runs low; the split is built deterministically from the
// reserve, so a retry after a crash sends the same transaction again.
import { Transaction } from '@bsv/sdk';
import { hash160 } from '../../crypto/hash.js';
import { lockingScriptOf } from '../../crypto/script-objects.js';
import { publicKeyOf } from '../../crypto/secp256k1.js';
import { networkFee } from '../../domain/network-fee.js';
import { signP2pkhInputs } from '../../domain/sign-p2pkh.js';
import { buildP2pkhScript } from '../../domain/token-script.js';
import type { Ledger } from '../../ledger/port.js';
import type { Logger } from '../../process/logger.js';
import type { Db } from '../../store/db/db.js';
import { addPoolOutputs, availableFundingUpTo } from '../../store/funding/funding-pool.js';
import {
  addReserveOutputs,
  availableReserve,
  type ReserveOutput,
  settleReserveOutputs,
} from '../../store/funding/funding-reserve.js';
import { readSetting, writeSetting } from '../../store/settings.js';

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

/** The settings key of the split under way: its largest input and its outputs. */
const SPLIT_INTENT = 'funding_split_intent';
interface SplitIntent {
  readonly input: string;
  readonly outputs: number;
}

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
 * them, when fewer than `lowWater` outputs are available. A split the ledger refuses for good
 * marks its reserve outputs `refused` (they were spent elsewhere, say) so that the next refill
 * tries others.
 */
export async function refillFundingPool(
  deps: RefillDeps,
  lowWater: number,
  wanted = DEFAULT_SPLIT_OUTPUTS,
): Promise<string | null> {
  if ((await availableFundingUpTo(deps.db, lowWater)) >= lowWater) return null;
  const reserve = await availableReserve(deps.db);
  if (reserve.length === 0) return null;
  // The split's size is recorded before it is sent: a retry after a crash between sending and
  // recording makes the same split (same inputs, same outputs) whatever demand says by then.
  const first = `${reserve[0]!.txid}_${reserve[0]!.vout}`;
  const intent = await readSetting<SplitIntent>(deps.db, SPLIT_INTENT);
  const outputs = intent?.input === first ? intent.outputs : wanted;
  if (intent?.input !== first)
    await writeSetting(deps.db, SPLIT_INTENT, { input: first, outputs } satisfies SplitIntent, deps.now());
  const rate = await deps.feeRate();
  const script = buildP2pkhScript(hash160(publicKeyOf(deps.fundingKey)));
  const denominations = defaultDenominations(rate, outputs);
  const pool = denominations.flatMap((d) => Array.from({ length: d.count }, () => d.satoshis));
  const poolTotal = pool.reduce((a, b) => a + b, 0n);
  const chosen: ReserveOutput[] = [];
  let total = 0n;
  let change = 0n;
  for (const output of reserve.slice(0, MAX_SPLIT_INPUTS)) {
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
  const tx = new Transaction(1, [], [], 0);
  for (const input of chosen)
    tx.addInput({ sourceTXID: input.txid, sourceOutputIndex: input.vout, sequence: 0xffffffff });
  for (const satoshis of pool)
    tx.addOutput({ satoshis: Number(satoshis), lockingScript: lockingScriptOf(script) });
  tx.addOutput({ satoshis: Number(change), lockingScript: lockingScriptOf(script) });
  signP2pkhInputs(
    tx,
    chosen.map((input) => ({ lockingScript: script, satoshis: input.satoshis })),
    deps.fundingKey,
  );
  const txid = tx.id('hex');
  const result = await deps.ledger.broadcast(tx.toUint8Array());
  if (!result.ok) {
    if (!result.retryable) {
      await settleReserveOutputs(deps.db, chosen, { state: 'refused', error: result.reason });
      deps.log.error(
        { txid, inputs: chosen.map((o) => `${o.txid}_${o.vout}`), reason: result.reason },
        'funding split refused by the ledger: its reserve outputs are marked refused',
      );
    }
    throw new Error(`funding split refused by the ledger: ${result.reason}`);
  }
  await deps.db.transaction(async (q) => {
    await addPoolOutputs(q, txid, pool, script);
    await settleReserveOutputs(q, chosen, { state: 'spent', spentBy: txid });
    await addReserveOutputs(q, [{ txid, vout: pool.length, satoshis: change }], 'split', deps.now());
  });
  deps.log.info(
    { txid, inputs: chosen.length, outputs: pool.length, reserve: change.toString() },
    'funding pool refilled',
  );
  return txid;
}
