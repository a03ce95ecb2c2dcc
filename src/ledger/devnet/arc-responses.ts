// The JSON bodies of the devnet's ARC API, shaped as ARC's (pkg/api/arc.yaml): transaction
// statuses, callbacks, RFC 7807 problems with ARC's error numbers, the policy and health.
import { type ArcTxStatus, arcNameOf } from '../arc/arc-status.js';
import type { TxStatus } from '../port.js';

const ERROR_DOCS = 'https://bitcoin-sv.github.io/arc/#/errors?id=_';

const PROBLEMS: Record<number, { title: string; detail: string }> = {
  400: { title: 'Bad request', detail: 'The request seems to be malformed and cannot be processed' },
  401: { title: 'Unauthorized', detail: 'Missing or wrong bearer token' },
  404: { title: 'Not found', detail: 'The requested resource could not be found' },
  409: { title: 'Generic error', detail: 'Transaction could not be processed' },
  460: {
    title: 'Not extended format',
    detail: 'Transaction is not in extended format, missing input scripts',
  },
  461: { title: 'Malformed transaction', detail: 'Transaction is malformed and cannot be processed' },
  462: {
    title: 'Invalid inputs',
    detail: 'Transaction is invalid because the inputs are non-existent or spent',
  },
  463: { title: 'Malformed transaction', detail: 'Transaction is malformed and cannot be processed' },
  464: {
    title: 'Invalid outputs',
    detail: 'Transaction is invalid because the outputs are non-existent or invalid',
  },
  465: { title: 'Fee too low', detail: 'Fees are too low' },
  466: {
    title: 'Conflicting tx found',
    detail: 'Transaction is valid, but there is a conflicting tx in the block template',
  },
  474: { title: 'Transaction size', detail: 'Transaction size exceeds the policy' },
};

export interface ArcProblem {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly instance: null;
  readonly txid: string | null;
  readonly extraInfo: string;
  readonly competingTxs?: readonly string[];
}

export function problem(status: number, extraInfo = '', txid: string | null = null): ArcProblem {
  const known = PROBLEMS[status] ?? PROBLEMS[409]!;
  return { type: `${ERROR_DOCS}${status}`, ...known, status, instance: null, txid, extraInfo };
}

export interface ArcStatusBody {
  readonly timestamp: string;
  readonly txid: string;
  readonly txStatus: ArcTxStatus;
  readonly blockHash: string;
  readonly blockHeight: number;
  readonly merklePath: string;
  readonly extraInfo: string;
  readonly competingTxs: readonly string[] | null;
}

/** A known transaction's status as GET /v1/tx/{txid} answers it; null when the devnet does not know it. */
export function statusBody(
  txid: string,
  status: TxStatus,
  inStaleBlock: boolean,
  now: Date,
): ArcStatusBody | null {
  const txStatus = arcNameOf(status, inStaleBlock);
  if (txStatus === null) return null;
  return {
    timestamp: now.toISOString(),
    txid,
    txStatus,
    blockHash: status.kind === 'mined' ? status.blockHash : '',
    blockHeight: status.kind === 'mined' ? status.height : 0,
    merklePath: status.kind === 'mined' ? status.merklePath : '',
    extraInfo: status.kind === 'rejected' ? status.reason : '',
    competingTxs: status.kind === 'double-spend' ? status.competingTxids : null,
  };
}

/** POST /v1/tx's success body: the status plus ARC's `status` and `title`. */
export function submitBody(body: ArcStatusBody): ArcStatusBody & { status: 200; title: 'OK' } {
  return { ...body, status: 200, title: 'OK' };
}

/** A callback body, as ARC's callbacker posts it (absent fields left out). */
export function callbackBody(body: ArcStatusBody): Record<string, unknown> {
  return {
    timestamp: body.timestamp,
    txid: body.txid,
    txStatus: body.txStatus,
    ...(body.extraInfo !== '' && { extraInfo: body.extraInfo }),
    ...(body.competingTxs !== null && { competingTxs: body.competingTxs }),
    ...(body.merklePath !== '' && { merklePath: body.merklePath }),
    ...(body.blockHash !== '' && { blockHash: body.blockHash, blockHeight: body.blockHeight }),
  };
}

export function policyBody(
  feeRateSatPerKb: bigint,
  maxTxSizeBytes: number,
  now: Date,
): Record<string, unknown> {
  return {
    timestamp: now.toISOString(),
    policy: {
      maxscriptsizepolicy: 100_000_000,
      maxtxsigopscountspolicy: 4_294_967_295,
      maxtxsizepolicy: maxTxSizeBytes,
      miningFee: { satoshis: Number(feeRateSatPerKb), bytes: 1000 },
    },
  };
}

export function healthBody(): Record<string, unknown> {
  return { healthy: true, version: 'tokenproxy-devnet', reason: null };
}
