// This process's submission pipeline (docs/adr/0002-batched-write-path.md): the reads a
// submission needs (its earlier ticket, the token outputs it spends and whether their owners
// are frozen) batched per tick, the
// committer that writes the submissions gathered meanwhile in one database transaction, and the
// funding outputs leased to this process. Built once per process by compose.ts.
import { performance } from 'node:perf_hooks';
import type { CosignKeys } from '../domain/complete-transfer.js';
import type { CosignJob, CosignOutcome } from '../domain/cosign-transfer.js';
import { createBatcher } from '../process/batcher.js';
import { cosignerInThread, cosignerOnThreads } from '../process/cosigner.js';
import type { Logger } from '../process/logger.js';
import type { Db } from '../store/db.js';
import { isRetryableConflict } from '../store/sql-error.js';
import { submissionLookups } from '../store/submission-lookups.js';
import { type Submission, type SubmissionVerdict, writeSubmissions } from '../store/submission-writes.js';
import type { StoredTokenOutput } from '../store/wallet-queries.js';
import {
  createFundingLeasePool,
  type FundingLeasePool,
  type FundingLeaseSettings,
} from './funding-lease-pool.js';

export interface SubmissionLookup {
  readonly submittedTxid: string;
  readonly outpoints: readonly string[];
}

export interface LookedUp {
  /** The ticket of the same transaction submitted before, if any. */
  readonly earlierTicketId: string | null;
  /** Token outputs the index holds, by outpoint (at least the asked ones). */
  readonly known: ReadonlyMap<string, StoredTokenOutput>;
  /** Which owners of those outputs are frozen (the freeze list). */
  readonly frozen: ReadonlySet<string>;
}

export interface SubmissionPipeline {
  lookUp(item: SubmissionLookup): Promise<LookedUp>;
  /** Validates and cosigns a transfer: on the cosigning threads, or here (cosignThreads 0). */
  cosign(job: CosignJob): Promise<CosignOutcome>;
  commit(submission: Submission): Promise<SubmissionVerdict>;
  readonly funding: FundingLeasePool;
  /** Waits for what is in flight, then gives the funding leases back and stops the threads. */
  close(): Promise<void>;
}

export interface PipelineSettings {
  /** Most submissions one transaction writes. */
  readonly maxBatch: number;
  /** Batches committing at once (1 on PGlite: it runs one transaction at a time anyway). */
  readonly maxInFlight: number;
  /**
   * Milliseconds a lone submission waits for company before its batch starts (PGlite: its
   * transactions never yield to I/O, so nothing arrives while one runs); 0 where the database
   * is across a socket and natural batching forms the batches.
   */
  readonly windowMs: number;
  /** This process's share of the funding pool (config: fundingLease*). */
  readonly funding: FundingLeaseSettings;
  /** Worker threads that cosign (0: the event loop does). */
  readonly cosignThreads: number;
}

/** What the pipeline reports of every batch (the service's metrics; nothing by default). */
export type BatchObserver = (stage: 'lookup' | 'commit', size: number, seconds: number, ok: boolean) => void;

/** Runs `write` for a batch of `size`, reporting its size and duration to `observe`. */
async function observed<T>(
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

export function createSubmissionPipeline(deps: {
  readonly db: Db;
  readonly now: () => Date;
  readonly log: Logger;
  readonly settings: PipelineSettings;
  readonly keys: CosignKeys;
  readonly observe?: BatchObserver;
}): SubmissionPipeline {
  const { db, settings } = deps;
  const cosigner =
    settings.cosignThreads > 0
      ? cosignerOnThreads(deps.keys, settings.cosignThreads)
      : cosignerInThread(deps.keys);
  const funding = createFundingLeasePool({
    db,
    now: deps.now,
    log: deps.log,
    settings: settings.funding,
  });

  const lookups = createBatcher<SubmissionLookup, LookedUp>(
    async (items) => {
      const { earlier, known, frozen } = await observed(deps.observe, 'lookup', items.length, () =>
        submissionLookups(
          db,
          [...new Set(items.map((i) => i.submittedTxid))],
          [...new Set(items.flatMap((i) => i.outpoints))],
        ),
      );
      return items.map((i) => ({ earlierTicketId: earlier.get(i.submittedTxid) ?? null, known, frozen }));
    },
    { maxBatch: settings.maxBatch, maxInFlight: settings.maxInFlight, windowMs: settings.windowMs },
  );

  const commits = createBatcher<Submission, SubmissionVerdict>(
    async (batch) => {
      const { distinct, settle } = settleInsideBatch(batch);
      const leaseUntil = new Date(deps.now().getTime() + settings.funding.leaseMs);
      for (let attempt = 1; ; attempt++) {
        try {
          const verdicts = await observed(deps.observe, 'commit', distinct.length, () =>
            db.transaction((tx) =>
              writeSubmissions(tx, distinct, { owner: funding.owner, until: leaseUntil }),
            ),
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

  return {
    lookUp: (item) => lookups.add(item),
    cosign: (job) => cosigner.cosign(job),
    commit: (submission) => commits.add(submission),
    funding,
    async close() {
      await lookups.drain();
      await commits.drain();
      await funding.close();
      await cosigner.close();
    },
  };
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
