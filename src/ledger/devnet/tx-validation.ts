// The devnet's checks of a transaction before its mempool takes it, in ARC's order and with
// ARC's error numbers (bitcoin-sv/arc internal/validator): 462 inputs, 474 size, 464 outputs,
// 463 malformed, 466 conflicts, 465 fees (outputs above inputs included, as ARC does), 461 scripts.
import type { verifySpend } from '../../domain/verify-spend.js';
import { type CoinLookup, outpoint } from './chain-state.js';
import type { ParsedTx } from './tx-format.js';

export const ARC_CODE = {
  notExtendedFormat: 460,
  scripts: 461,
  inputs: 462,
  malformed: 463,
  outputs: 464,
  fees: 465,
  conflict: 466,
  txSize: 474,
} as const;

export interface Refusal {
  readonly arcCode: number;
  readonly reason: string;
  readonly retryable: boolean;
  /** Set for 466: who spent the inputs first, and where. */
  readonly conflict?: { readonly where: 'mempool' | 'chain'; readonly competingTxids: readonly string[] };
}

export interface ValidationPolicy {
  readonly feeRateSatPerKb: bigint;
  readonly maxTxSizeBytes: number;
  /** Height and time (Unix seconds) of the block the transaction would be mined in. */
  readonly nextHeight: number;
  readonly nextTime: number;
}

export interface CoinView {
  lookup(op: string): CoinLookup;
}

export type SpendVerifier = typeof verifySpend;

const MAX_SATOSHIS = 21_000_000n * 100_000_000n;
const MIN_TX_SIZE = 61;
const NULL_TXID = '0'.repeat(64);
const FINAL_SEQUENCE = 0xffffffff;

const refuse = (arcCode: number, reason: string, retryable = false): Refusal => ({
  arcCode,
  reason,
  retryable,
});

/** The network fee a transaction of `size` bytes owes: ceil(size * rate / 1000), as @bsv/sdk and ARC compute it. */
export function requiredFee(size: number, feeRateSatPerKb: bigint): bigint {
  return (BigInt(size) * feeRateSatPerKb + 999n) / 1000n;
}

/**
 * Null when the transaction may enter the mempool; otherwise why not. `paid`, when given, is
 * told the fee of a transaction that may (the coins were looked up here already).
 */
export function validateTransaction(
  view: CoinView,
  parsed: ParsedTx,
  policy: ValidationPolicy,
  verify: SpendVerifier,
  paid?: (fee: bigint) => void,
): Refusal | null {
  const { tx, raw } = parsed;
  if (tx.inputs.length === 0 || tx.outputs.length === 0) {
    return refuse(ARC_CODE.inputs, 'transaction has no inputs or no outputs');
  }
  if (raw.length > policy.maxTxSizeBytes) {
    return refuse(ARC_CODE.txSize, `transaction size ${raw.length} exceeds ${policy.maxTxSizeBytes} bytes`);
  }
  for (const [i, input] of tx.inputs.entries()) {
    if (input.sourceTXID === NULL_TXID) return refuse(ARC_CODE.inputs, `input ${i} is a coinbase input`);
  }
  let outputTotal = 0n;
  for (const [i, out] of tx.outputs.entries()) {
    const sats = BigInt(out.satoshis ?? 0);
    const script = out.lockingScript.toUint8Array();
    const isData = script[0] === 0x6a || (script[0] === 0x00 && script[1] === 0x6a);
    if (isData && sats !== 0n) return refuse(ARC_CODE.outputs, `output ${i} is a data output with satoshis`);
    if (!isData && (sats < 1n || sats > MAX_SATOSHIS)) {
      return refuse(ARC_CODE.outputs, `output ${i} satoshis ${sats} out of range`);
    }
    outputTotal += sats;
  }
  if (outputTotal > MAX_SATOSHIS) return refuse(ARC_CODE.outputs, 'output total is too high');
  if (raw.length < MIN_TX_SIZE)
    return refuse(ARC_CODE.malformed, `transaction size ${raw.length} below ${MIN_TX_SIZE}`);
  for (const [i, input] of tx.inputs.entries()) {
    if (!isPushOnly(input.unlockingScript)) {
      return refuse(ARC_CODE.malformed, `input ${i} unlocking script is not push only`);
    }
  }
  if (!isFinal(parsed, policy))
    return refuse(ARC_CODE.malformed, 'transaction is not final (lock time)', true);

  const ops = tx.inputs.map((input) => outpoint(input.sourceTXID ?? '', input.sourceOutputIndex));
  if (new Set(ops).size !== ops.length)
    return refuse(ARC_CODE.inputs, 'an outpoint is spent twice in the transaction');
  const coins = [];
  for (const [i, op] of ops.entries()) {
    const found = view.lookup(op);
    if (found.kind === 'spent') {
      const competing = [
        ...new Set(ops.map((o) => view.lookup(o)).flatMap((l) => (l.kind === 'spent' ? [l.by] : []))),
      ];
      return {
        arcCode: ARC_CODE.conflict,
        reason: `input ${i} (${op}) is already spent by ${found.by} in the ${found.where === 'mempool' ? 'mempool' : 'chain'}`,
        retryable: false,
        conflict: { where: found.where, competingTxids: competing },
      };
    }
    if (found.kind === 'missing') {
      return found.parentKnown
        ? refuse(ARC_CODE.inputs, `input ${i} (${op}) does not exist`)
        : refuse(ARC_CODE.inputs, `input ${i} (${op}): parent transaction not found`, true);
    }
    coins.push(found.coin);
  }
  const inputTotal = coins.reduce((sum, c) => sum + c.satoshis, 0n);
  if (outputTotal > inputTotal) {
    return refuse(ARC_CODE.fees, `total outputs ${outputTotal} exceed total inputs ${inputTotal}`);
  }
  const owed = requiredFee(raw.length, policy.feeRateSatPerKb);
  if (inputTotal - outputTotal < owed) {
    return refuse(
      ARC_CODE.fees,
      `fee ${inputTotal - outputTotal} below the ${owed} satoshis owed (${policy.feeRateSatPerKb} sat/kB, ${raw.length} bytes)`,
    );
  }
  // Shared sighash parts of this transaction, computed once for all its inputs.
  const cache: Parameters<SpendVerifier>[3] = {};
  for (const [i, coin] of coins.entries()) {
    const check = verify(tx, i, coin, cache);
    if (!check.ok) return refuse(ARC_CODE.scripts, `input ${i} script failed: ${check.reason}`);
  }
  paid?.(inputTotal - outputTotal);
  return null;
}

function isPushOnly(script: ParsedTx['tx']['inputs'][number]['unlockingScript']): boolean {
  if (script === undefined) return false;
  try {
    return script.isPushOnly();
  } catch {
    return false;
  }
}

/** Final as the node sees it: lock time 0, every sequence final, or a lock time already passed. */
function isFinal(parsed: ParsedTx, policy: ValidationPolicy): boolean {
  const { lockTime, inputs } = parsed.tx;
  if (lockTime === 0) return true;
  if (inputs.every((input) => (input.sequence ?? FINAL_SEQUENCE) === FINAL_SEQUENCE)) return true;
  return lockTime < 500_000_000 ? lockTime < policy.nextHeight : lockTime < policy.nextTime;
}
