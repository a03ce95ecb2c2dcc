// The committer: writes the submissions that gather while its previous batch is in flight in one
// database transaction (docs/adr/0002-batched-write-path.md), after settling conflicts inside
// the batch in memory. One per process that writes transfers: an api process without a writer
// (ADR 0007), or the writer, whose batches hold every api process's submissions.
import { performance } from 'node:perf_hooks';
import { type OperatorAddresses, utcDayStart } from '../../domain/issuer-controls.js';
import { type Batcher, createBatcher } from '../../process/batcher.js';
import type { Logger } from '../../process/logger.js';
import type { Db } from '../../store/db/db.js';
import { isRetryableConflict } from '../../store/db/sql-error.js';
import {
  type Submission,
  type SubmissionVerdict,
  writeSubmissions,
} from '../../store/submissions/submission-writes.js';

/** What the service is told of every batch (its metrics; nothing by default). */
export type BatchObserver = (stage: 'lookup' | 'commit', size: number, seconds: number, ok: boolean) => void;

export interface CommitterSettings {
  /** Most submissions one transaction writes. */
  readonly maxBatch: number;
  /** Batches committing at once. */
  readonly maxInFlight: number;
  /** Milliseconds a lone submission waits for company when no batch is in flight. */
  readonly windowMs: number;
  /** How long a loser's funding output stays leased to its owner again (fundingLeaseMs). */
  readonly leaseMs: number;
}

export type SubmissionCommitter = Batcher<Submission, SubmissionVerdict>;

/** Runs `write` for a batch of `size`, reporting its size and duration to `observe`. */
export async function observed<T>(
  observe: BatchObserver | undefined,
  stage: 'lookup' | 'commit',
  size: number,
  write: () => Promise<T>,
): Promise<T> {
  if (observe === undefined) return write();
  const started = performance.now();
  let ok = false;
  try {
    const result = await write();
    ok = true;
    return result;
  } finally {
    observe(stage, size, (performance.now() - started) / 1000, ok);
  }
}

/** Attempts of a batch whose transaction PostgreSQL aborted as a deadlock or serialization failure. */
const BATCH_ATTEMPTS = 3;

export function createSubmissionCommitter(deps: {
  readonly db: Db;
  readonly now: () => Date;
  readonly log: Logger;
  readonly settings: CommitterSettings;
  readonly observe?: BatchObserver;
  /** The per-address daily limit (dailyLimitPerAddress), judged again at every batch's write. */
  readonly dailyLimit?: {
    readonly perAddressPerDay: bigint;
    readonly operator: OperatorAddresses;
  } | null;
}): SubmissionCommitter {
  const { db, settings } = deps;
  return createBatcher<Submission, SubmissionVerdict>(
    async (batch) => {
      const { distinct, settle } = settleInsideBatch(batch);
      const now = deps.now();
      const leaseUntil = new Date(now.getTime() + settings.leaseMs);
      const dailyLimit = deps.dailyLimit == null ? null : { ...deps.dailyLimit, since: utcDayStart(now) };
      for (let attempt = 1; ; attempt++) {
        try {
          const verdicts = await observed(deps.observe, 'commit', distinct.length, () =>
            db.transaction((tx) => writeSubmissions(tx, distinct, leaseUntil, dailyLimit)),
          );
          return settle(verdicts);
        } catch (err) {
          if (attempt >= BATCH_ATTEMPTS || !isRetryableConflict(err)) throw err;
          deps.log.warn(
            { err, attempt, size: distinct.length },
            'submission batch aborted by the database; writing it again',
          );
        }
      }
    },
    { maxBatch: settings.maxBatch, maxInFlight: settings.maxInFlight, windowMs: settings.windowMs },
  );
}

const outpointsOf = (s: Submission) => s.inputs.map((i) => `${i.txid}_${i.vout}`);

/**
 * Conflicts inside one batch, settled before the database sees it, in arrival order: the same
 * transaction twice is written once (the later ones get its verdict as a duplicate), and a
 * submission spending an input that an earlier one in the batch spends is refused as locked.
 */
export function settleInsideBatch(batch: readonly Submission[]): {
  distinct: Submission[];
  settle: (verdicts: readonly SubmissionVerdict[]) => SubmissionVerdict[];
} {
  const distinct: Submission[] = [];
  const firstOf = new Map<string, Submission>(); // submitted txid -> first submission of it
  const claimed = new Set<string>();
  const early = new Map<Submission, { refused: SubmissionVerdict } | { sameAs: Submission }>();
  for (const s of batch) {
    const same = firstOf.get(s.submittedTxid);
    if (same !== undefined) {
      early.set(s, { sameAs: same });
      continue;
    }
    const taken = outpointsOf(s).find((o) => claimed.has(o));
    if (taken !== undefined) {
      early.set(s, {
        refused: {
          kind: 'conflict',
          code: 'INPUT_LOCKED',
          detail: `outpoint ${taken} was locked in a previous transaction attempt`,
        },
      });
      continue;
    }
    firstOf.set(s.submittedTxid, s);
    for (const o of outpointsOf(s)) claimed.add(o);
    distinct.push(s);
  }
  return {
    distinct,
    settle(verdicts) {
      const byFirst = new Map(distinct.map((s, i) => [s, verdicts[i]!]));
      return batch.map((s) => {
        const own = byFirst.get(s);
        if (own !== undefined) return own;
        const settled = early.get(s)!;
        if ('refused' in settled) return settled.refused;
        // The same transaction as an earlier submission of this batch: its ticket, or its fate.
        const first = byFirst.get(settled.sameAs)!;
        return first.kind === 'created' ? { kind: 'duplicate', ticketId: settled.sameAs.ticketId } : first;
      });
    },
  };
}
