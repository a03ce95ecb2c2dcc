// The CPU-bound part of accepting a transfer, as one pure step that can run on any thread: read
// the wallet's transaction, check it against the token's rules and the outputs it spends
// (signatures included), and, given a funding output, add it and cosign. Its input and result
// are plain data (they cross to a worker thread: src/process/cosigner.ts); the transaction is
// read again here from its bytes rather than handed over as an object.
import { type CosignKeys, completeTransfer, type FundingOutput } from './complete-transfer.js';
import type { DomainErrorCode } from './domain-error.js';
import { parseTransfer } from './parse-transfer.js';
import type { TokenConfig } from './token-config.js';
import { isRefusal } from './transfer-refusal.js';
import { type KnownTokenOutput, validateTransfer } from './validate-transfer.js';

export interface CosignJob {
  /** The transaction as the wallet signed it. */
  readonly raw: Uint8Array;
  /** The token outputs it spends that the index knows (keyed by `<txid>_<vout>` here). */
  readonly known: readonly KnownTokenOutput[];
  /** The funding output to add; null to validate only (the pool had none). */
  readonly funding: FundingOutput | null;
  readonly satoshisPerKb: bigint;
  readonly token: TokenConfig;
}

export type CosignOutcome =
  | { readonly kind: 'refused'; readonly code: DomainErrorCode; readonly detail: string }
  | { readonly kind: 'valid' }
  | {
      readonly kind: 'cosigned';
      readonly raw: Uint8Array;
      readonly txid: string;
      readonly networkFee: bigint;
    };

export function cosignTransfer(job: CosignJob, keys: CosignKeys): CosignOutcome {
  const parsed = parseTransfer(job.raw, job.token);
  if (isRefusal(parsed)) return { kind: 'refused', code: parsed.code, detail: parsed.detail };
  const known = new Map(job.known.map((o) => [`${o.txid}_${o.vout}`, o]));
  const valid = validateTransfer(parsed, known, job.token);
  if (!valid.ok) return { kind: 'refused', code: valid.code, detail: valid.detail };
  if (job.funding === null) return { kind: 'valid' };
  const done = completeTransfer(valid, job.funding, keys, job.satoshisPerKb);
  return { kind: 'cosigned', raw: done.raw, txid: done.txid, networkFee: done.networkFee };
}
