// The outputs a transaction's inputs spend, found as the reference client finds them: from the
// raw source transactions the service would serve on GET /v1/tx/{txid}. Pure.

import { readClientTransaction } from './client-transaction.js';
import { DomainError } from './domain-error.js';

/** The output an input spends, as the service can fetch it; null or absent: unknown. */
export interface SourceOutput {
  readonly lockingScript: Uint8Array;
  readonly satoshis: bigint;
}

/** Keyed `<txid>_<vout>`. */
export type SourceOutputs = ReadonlyMap<string, SourceOutput | null>;

/**
 * The IDs of the transactions whose outputs `raw` spends (what the client fetches), once each.
 * @throws DomainError LIMIT_EXCEEDED when `raw` has more than `maxInputs` inputs (the work of a
 *   parse request is bounded by the transfer input limit).
 */
export function sourceTxidsOf(raw: Uint8Array, maxInputs = Number.POSITIVE_INFINITY): string[] {
  const { inputs } = readClientTransaction(raw);
  if (inputs.length > maxInputs)
    throw new DomainError('LIMIT_EXCEEDED', `${inputs.length} inputs (at most ${maxInputs})`);
  return [...new Set(inputs.map((i) => i.sourceTxid))];
}

/**
 * The source outputs of `raw`'s inputs from the raw transactions the service would serve on
 * GET /v1/tx/{txid} (absent: the client gets none, the input is unknown).
 * @throws DomainError INVALID_TX where an input names an output its known source transaction
 *   does not have: the client fails there.
 */
export function sourceOutputsFrom(
  raw: Uint8Array,
  sourceTxs: ReadonlyMap<string, Uint8Array>,
): SourceOutputs {
  const found = new Map<string, SourceOutput | null>();
  for (const { sourceTxid, sourceVout } of readClientTransaction(raw).inputs) {
    const sourceTx = sourceTxs.get(sourceTxid);
    const key = `${sourceTxid}_${sourceVout}`;
    if (sourceTx === undefined) {
      found.set(key, null);
      continue;
    }
    const output = readClientTransaction(sourceTx).outputs[sourceVout];
    if (output === undefined) {
      throw new DomainError(
        'INVALID_TX',
        `the reference client cannot parse this transaction: ${key} does not exist`,
      );
    }
    found.set(key, { lockingScript: output.lockingScriptBytes, satoshis: output.satoshis });
  }
  return found;
}
