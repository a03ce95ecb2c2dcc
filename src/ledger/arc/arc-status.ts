// ARC's transaction statuses (bitcoin-sv/arc, numbered with gaps) and how they map to the
// ledger port's TxStatus, both ways: the arc adapter reads them, the devnet's ARC API writes them.
import type { TxStatus } from '../port.js';
import { indexInBump } from './bump-index.js';

export const ARC_STATUS_RANK = {
  UNKNOWN: 0,
  QUEUED: 10,
  RECEIVED: 20,
  STORED: 30,
  ANNOUNCED_TO_NETWORK: 40,
  REQUESTED_BY_NETWORK: 50,
  SENT_TO_NETWORK: 60,
  ACCEPTED_BY_NETWORK: 70,
  SEEN_IN_ORPHAN_MEMPOOL: 80,
  SEEN_ON_NETWORK: 90,
  DOUBLE_SPEND_ATTEMPTED: 100,
  REJECTED: 110,
  MINED_IN_STALE_BLOCK: 115,
  MINED: 120,
} as const;

export type ArcTxStatus = keyof typeof ARC_STATUS_RANK;

export function isArcTxStatus(value: unknown): value is ArcTxStatus {
  return typeof value === 'string' && Object.hasOwn(ARC_STATUS_RANK, value);
}

/** The fields of ARC's status answers and callbacks that the mapping reads. */
export interface ArcStatusFields {
  readonly txid?: unknown;
  readonly txStatus?: unknown;
  readonly blockHash?: unknown;
  readonly blockHeight?: unknown;
  readonly merklePath?: unknown;
  readonly extraInfo?: unknown;
  readonly competingTxs?: unknown;
  readonly timestamp?: unknown;
}

/**
 * ARC's status as the port's. Null when `txStatus` is not one of ARC's statuses.
 * - UNKNOWN, QUEUED, RECEIVED, STORED: unknown (ARC holds it but has not sent it to any node;
 *   it may still be refused); SEEN_IN_ORPHAN_MEMPOOL: unknown too (its parents are missing).
 * - ANNOUNCED_TO_NETWORK .. SEEN_ON_NETWORK: mempool; MINED_IN_STALE_BLOCK: mempool again.
 * - MINED: mined, when it carries the block hash, height and a BUMP holding the txid (the
 *   index in the block comes from the BUMP); without them it stays mempool until they come.
 *   ARC gives no block time: `blockTime` (Unix seconds) is the caller's best knowledge.
 * - REJECTED: rejected (extraInfo as the reason); DOUBLE_SPEND_ATTEMPTED: double-spend.
 */
export function txStatusFromArc(txid: string, fields: ArcStatusFields, blockTime: number): TxStatus | null {
  const name = fields.txStatus;
  if (!isArcTxStatus(name)) return null;
  switch (name) {
    case 'UNKNOWN':
    case 'QUEUED':
    case 'RECEIVED':
    case 'STORED':
    case 'SEEN_IN_ORPHAN_MEMPOOL':
      return { kind: 'unknown' };
    case 'ANNOUNCED_TO_NETWORK':
    case 'REQUESTED_BY_NETWORK':
    case 'SENT_TO_NETWORK':
    case 'ACCEPTED_BY_NETWORK':
    case 'SEEN_ON_NETWORK':
    case 'MINED_IN_STALE_BLOCK':
      return { kind: 'mempool' };
    case 'MINED':
      return minedFromArc(txid, fields, blockTime) ?? { kind: 'mempool' };
    case 'REJECTED':
      return { kind: 'rejected', reason: textOf(fields.extraInfo) || 'rejected by the network' };
    case 'DOUBLE_SPEND_ATTEMPTED':
      return {
        kind: 'double-spend',
        competingTxids: Array.isArray(fields.competingTxs)
          ? fields.competingTxs.filter((t): t is string => typeof t === 'string')
          : [],
      };
  }
}

function minedFromArc(txid: string, fields: ArcStatusFields, blockTime: number): TxStatus | null {
  const { blockHash, blockHeight, merklePath } = fields;
  if (typeof blockHash !== 'string' || blockHash.length !== 64) return null;
  if (typeof blockHeight !== 'number' || !Number.isSafeInteger(blockHeight) || blockHeight < 0) return null;
  if (typeof merklePath !== 'string' || merklePath.length === 0) return null;
  const index = indexInBump(merklePath, txid);
  if (index === null) return null;
  return { kind: 'mined', blockHash, height: blockHeight, index, blockTime, merklePath };
}

/** The ARC status a devnet status is reported as. Null for unknown (ARC answers 404). */
export function arcNameOf(status: TxStatus, inStaleBlock: boolean): ArcTxStatus | null {
  switch (status.kind) {
    case 'unknown':
      return null;
    case 'mempool':
      return inStaleBlock ? 'MINED_IN_STALE_BLOCK' : 'SEEN_ON_NETWORK';
    case 'mined':
      return 'MINED';
    case 'rejected':
      return 'REJECTED';
    case 'double-spend':
      return 'DOUBLE_SPEND_ATTEMPTED';
  }
}

function textOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
