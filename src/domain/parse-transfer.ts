// Rules 1 and 4 of a submitted transfer: it parses, is final, within limits, and every
// output is a token output of this token or the one allowed data output; and the network's
// policy takes its cosigned form (ledger-policy.ts). Pure.
import { Transaction, Utils } from '@bsv/sdk';
import { txidOf } from '../crypto/txid.js';
import { MAX_VOUT } from './index-bounds.js';
import { ledgerPolicyRefusal } from './ledger-policy.js';
import { classifyOutput } from './output-kind.js';
import type { ParsedTransfer, TokenOutputOut } from './parsed-transfer.js';
import type { TokenConfig } from './token-config.js';
import type { Refusal } from './transfer-refusal.js';
import { checkTxShape } from './tx-shape.js';

const FINAL_SEQUENCE = 0xffffffff;

export function parseTransfer(raw: Uint8Array, config: TokenConfig): ParsedTransfer | Refusal {
  const { limits } = config;
  if (raw.length > limits.maxTxBytes) {
    return refuse('LIMIT_EXCEEDED', `transaction is ${raw.length} bytes (at most ${limits.maxTxBytes})`);
  }
  const shape = checkTxShape(raw);
  if (!shape.ok) return refuse('INVALID_TX', `transaction does not parse: ${shape.reason}`);
  let tx: Transaction;
  try {
    const reader = new Utils.ReaderUint8Array(raw);
    tx = Transaction.fromReader(reader);
    if (reader.pos !== raw.length) return refuse('INVALID_TX', 'trailing bytes after the transaction');
  } catch (err) {
    return refuse(
      'INVALID_TX',
      `transaction does not parse: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  if (tx.inputs.length === 0 || tx.outputs.length === 0)
    return refuse('INVALID_TX', 'no inputs or no outputs');
  if (tx.inputs.length > limits.maxInputs) {
    return refuse('LIMIT_EXCEEDED', `${tx.inputs.length} inputs (at most ${limits.maxInputs})`);
  }
  if (tx.outputs.length > limits.maxOutputs) {
    return refuse('LIMIT_EXCEEDED', `${tx.outputs.length} outputs (at most ${limits.maxOutputs})`);
  }
  if (tx.lockTime !== 0) return refuse('NON_FINAL_TX', `nLockTime is ${tx.lockTime}, must be 0`);

  const outpoints: string[] = [];
  const seen = new Set<string>();
  for (const [i, input] of tx.inputs.entries()) {
    if ((input.sequence ?? FINAL_SEQUENCE) !== FINAL_SEQUENCE) {
      return refuse('NON_FINAL_TX', `input ${i} nSequence is not 0xffffffff`);
    }
    // No stored output has an index above 2^31 - 1 (the store's int), so none can be spent.
    if (input.sourceOutputIndex > MAX_VOUT) {
      return refuse(
        'UNKNOWN_INPUT',
        `input ${i} spends output ${input.sourceOutputIndex}, above ${MAX_VOUT}`,
      );
    }
    const outpoint = `${input.sourceTXID}_${input.sourceOutputIndex}`;
    if (seen.has(outpoint)) return refuse('DUPLICATE_INPUT', `outpoint ${outpoint} is spent twice`);
    seen.add(outpoint);
    outpoints.push(outpoint);
  }

  const tokenOutputs: TokenOutputOut[] = [];
  let dataOutputs = 0;
  for (const [vout, output] of tx.outputs.entries()) {
    const kind = classifyOutput(
      output.lockingScript.toUint8Array(),
      BigInt(output.satoshis ?? 0),
      vout,
      config,
    );
    if (kind.kind === 'refused') return refuse(kind.code, kind.detail);
    if (kind.kind === 'data') {
      dataOutputs += 1;
      if (dataOutputs > 1) return refuse('FOREIGN_OUTPUT', `output ${vout} is a second data output`);
      continue;
    }
    tokenOutputs.push({ vout, op: kind.op, owner: kind.owner, amount: kind.amount });
  }
  if (tokenOutputs.length === 0) return refuse('FOREIGN_OUTPUT', 'no token outputs');
  const parsed = { tx, raw, txid: txidOf(raw), size: raw.length, outpoints, tokenOutputs };
  return ledgerPolicyRefusal(parsed) ?? parsed;
}

function refuse(code: Refusal['code'], detail: string): Refusal {
  return { ok: false, code, detail };
}
