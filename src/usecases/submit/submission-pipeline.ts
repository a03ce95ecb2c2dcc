// This process's submission pipeline (docs/adr/0002-batched-write-path.md): the reads a
// submission needs (its earlier ticket, the token outputs it spends and whether their owners
// are frozen) batched per tick, the cosigning, the funding outputs leased to this process, and
// the way to the committer (this process's, or the writer's: docs/adr/0007). Built once per
// process by compose.ts.
import type { CosignKeys } from '../../domain/complete-transfer.js';
import type { CosignJob, CosignOutcome } from '../../domain/cosign-transfer.js';
import { createBatcher } from '../../process/batcher.js';
import { cosignerInThread, cosignerOnThreads } from '../../process/cosigner.js';
import type { Logger } from '../../process/logger.js';
import type { Db } from '../../store/db/db.js';
import { submissionLookups } from '../../store/submissions/submission-lookups.js';
import type { Submission, SubmissionVerdict } from '../../store/submissions/submission-writes.js';
import type { StoredTokenOutput } from '../../store/wallets/wallet-queries.js';
import {
  createFundingLeasePool,
  type FundingLeasePool,
  type FundingLeaseSettings,
} from './funding-lease-pool.js';
import { createFundingShare, type FundingShare, type FundingShareSettings } from './funding-share.js';
import { type BatchObserver, observed } from './submission-committer.js';

export type { BatchObserver } from './submission-committer.js';

export interface SubmissionLookup {
  readonly submittedTxid: string;
  readonly outpoints: readonly string[];
  /** The addresses it pays: the blacklist is looked up for them too. */
  readonly receivers?: readonly string[];
  /** With a daily limit set, the start of the day its senders' sums count from. */
  readonly dailySince?: Date | null;
}

export interface LookedUp {
  /** The ticket of the same transaction submitted before, if any. */
  readonly earlierTicketId: string | null;
  /** Token outputs the index holds, by outpoint (at least the asked ones). */
  readonly known: ReadonlyMap<string, StoredTokenOutput>;
  /** Which owners of those outputs are frozen (the freeze list). */
  readonly frozen: ReadonlySet<string>;
  /** The issuer's controls as the batch's statement read them (issue 32). */
  readonly paused: boolean;
  readonly blacklisted: ReadonlySet<string>;
  readonly seized: ReadonlySet<string>;
  readonly sentSince: ReadonlyMap<string, bigint>;
}

export interface SubmissionPipeline {
  lookUp(item: SubmissionLookup): Promise<LookedUp>;
  /** Validates and cosigns a transfer: on the cosigning threads, or here (cosignThreads 0). */
  cosign(job: CosignJob): Promise<CosignOutcome>;
  /** Writes the submission (its `leaseOwner` is this pipeline's `funding.owner`): once its batch committed. */
  commit(submission: Submission): Promise<SubmissionVerdict>;
  readonly funding: FundingLeasePool;
  /** Each API key's share of the funding pool while it is low (funding-share.ts). */
  readonly share: FundingShare;
  /** Waits for the look-ups and commits in flight, then gives the funding leases back and stops the threads. */
  close(): Promise<void>;
}

export interface PipelineSettings {
  /** Most look-ups one batch reads. */
  readonly maxBatch: number;
  /** Look-up batches at once (1 on PGlite: it runs one transaction at a time anyway). */
  readonly maxInFlight: number;
  /**
   * Milliseconds a lone look-up waits for company before its batch starts (PGlite: its
   * transactions never yield to I/O, so nothing arrives while one runs).
   */
  readonly windowMs: number;
  /** This process's share of the funding pool (config: fundingLease*). */
  readonly funding: FundingLeaseSettings;
  /** Worker threads that cosign (0: the event loop does). */
  readonly cosignThreads: number;
  /** Each API key's share of a low funding pool (absent: not bound). */
  readonly share?: FundingShareSettings;
}

export function createSubmissionPipeline(deps: {
  readonly db: Db;
  readonly now: () => Date;
  readonly log: Logger;
  readonly settings: PipelineSettings;
  readonly keys: CosignKeys;
  /** Where submissions are written: this process's committer, or the writer's link. */
  readonly commit: (submission: Submission) => Promise<SubmissionVerdict>;
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
      // A batch that straddles midnight counts from the earlier day start: the stricter sum.
      const since = items
        .map((i) => i.dailySince ?? null)
        .reduce<Date | null>((a, b) => (a === null ? b : b === null || a <= b ? a : b), null);
      const { earlier, ...found } = await observed(deps.observe, 'lookup', items.length, () =>
        submissionLookups(
          db,
          [...new Set(items.map((i) => i.submittedTxid))],
          [...new Set(items.flatMap((i) => i.outpoints))],
          { receivers: items.flatMap((i) => i.receivers ?? []), dailySince: since },
        ),
      );
      return items.map((i) => ({ earlierTicketId: earlier.get(i.submittedTxid) ?? null, ...found }));
    },
    { maxBatch: settings.maxBatch, maxInFlight: settings.maxInFlight, windowMs: settings.windowMs },
  );

  // Commits in flight: close waits for them before the funding leases they use go back.
  const committing = new Set<Promise<unknown>>();
  const commit = (submission: Submission) => {
    const done = deps.commit(submission);
    const settled: Promise<unknown> = done.then(
      () => committing.delete(settled),
      () => committing.delete(settled),
    );
    committing.add(settled);
    return done;
  };

  return {
    lookUp: (item) => lookups.add(item),
    cosign: (job) => cosigner.cosign(job),
    commit,
    funding,
    share: createFundingShare({ db, settings: settings.share ?? { sharePercent: 100, lowWater: 0 } }),
    async close() {
      await lookups.drain();
      await Promise.all(committing);
      await funding.close();
      await cosigner.close();
    },
  };
}
