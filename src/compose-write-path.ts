// The write path a process's roles call for: processes answering transfers (api) or writing
// them (writer) commit submissions in batches (docs/adr/0002-batched-write-path.md); an api
// process of a deployment with a writer (PostgreSQL, ADR 0007) sends its writes to that writer;
// the api role's context adds the broadcast queue and the submission pipeline to the service's.
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { ServiceMetrics } from './metrics/service-metrics.js';
import type { Db } from './store/db/db.js';
import type { ApiContext, ServiceContext } from './usecases/context.js';
import { createBroadcastQueue } from './usecases/submit/broadcast-queue.js';
import {
  type CommitterSettings,
  createSubmissionCommitter,
  type SubmissionCommitter,
} from './usecases/submit/submission-committer.js';
import { createSubmissionPipeline, type PipelineSettings } from './usecases/submit/submission-pipeline.js';
import { applyLedgerStatuses } from './usecases/track/apply-ledger-status.js';
import { createWriterLink, type WriterLink } from './writer/writer-link.js';

/** How often an api process looks the writer up again, and passes a failed one by, ms. */
const WRITER_REFRESH_MS = 2_000;
/** How long an api process waits for the writer's answer before writing the batch itself, ms. */
const WRITER_TIMEOUT_MS = 10_000;

export interface WritePath {
  /** This process's committer of submissions (api and writer processes). */
  readonly committer: SubmissionCommitter | null;
  /** An api process's way to the deployment's writer (PostgreSQL, when it does not run the writer itself). */
  readonly writerLink: WriterLink | null;
  /** The api role's context; null without the api role. */
  readonly api: ApiContext | null;
}

/** Builds the write path of config.roles; what it opens is put first in `closers` (closed by the caller on a failed start). */
export async function composeWritePath(w: {
  readonly config: Config;
  readonly db: Db;
  readonly logger: Logger;
  readonly metrics: ServiceMetrics;
  readonly base: ServiceContext;
  readonly approverKey: Uint8Array;
  /** The owner of the funding leases this process takes. */
  readonly fundingOwner: string;
  readonly now: () => Date;
  readonly closers: (() => Promise<void>)[];
}): Promise<WritePath> {
  const { config, db, logger, metrics, base, approverKey, fundingOwner, now, closers } = w;
  // Processes answering transfers write them in batches (docs/adr/0002-batched-write-path.md)
  // and broadcast them in batches (both closed by the service's stop). With a writer in the
  // deployment (ADR 0007), an api process sends both kinds of writes to it instead.
  const runsApi = config.roles.includes('api');
  const runsWriter = config.roles.includes('writer');
  const observe = (stage: 'lookup' | 'commit', size: number, seconds: number, ok: boolean) => {
    metrics.batchSize.observe({ stage }, size);
    metrics.batchDuration.observe({ stage, outcome: ok ? 'ok' : 'error' }, seconds);
  };
  const committer =
    runsApi || runsWriter
      ? createSubmissionCommitter({
          db,
          now,
          log: logger,
          settings: committerSettingsOf(config, db),
          observe,
          dailyLimit:
            base.controls?.limits.perAddressPerDay == null
              ? null
              : { perAddressPerDay: base.controls.limits.perAddressPerDay, operator: base.token },
        })
      : null;
  const writerLink =
    runsApi && !runsWriter && committer !== null && db.dialect === 'postgres'
      ? createWriterLink({
          db,
          now,
          log: logger,
          local: {
            commit: (s) => committer.add(s),
            applyUpdates: (updates) => applyLedgerStatuses(base, updates),
          },
          settings: { refreshMs: WRITER_REFRESH_MS, timeoutMs: WRITER_TIMEOUT_MS },
          approverKey,
        })
      : null;
  if (writerLink !== null) {
    closers.unshift(() => writerLink.close());
    await writerLink.refresh();
  }
  const api: ApiContext | null =
    runsApi && committer !== null
      ? {
          ...base,
          broadcasts: createBroadcastQueue(
            base,
            writerLink === null ? {} : { apply: (updates) => writerLink.applyUpdates(updates) },
          ),
          submissions: createSubmissionPipeline({
            db,
            now,
            log: logger,
            settings: pipelineSettingsOf(config, db, fundingOwner),
            keys: base.keys,
            commit: writerLink === null ? (s) => committer.add(s) : (s) => writerLink.commit(s),
            observe,
          }),
        }
      : null;
  return { committer, writerLink, api };
}

/**
 * The committer's settings. PGlite runs one transaction at a time on the main thread: a lone
 * submission waits 2 ms for company (nothing arrives while a transaction runs); across a socket
 * a short window and natural batching form the batches.
 */
function committerSettingsOf(config: Config, db: Db): CommitterSettings {
  return {
    maxBatch: config.submissionBatchMax,
    maxInFlight: config.submissionBatchesInFlight,
    windowMs: config.submissionWindowMs ?? (db.dialect === 'pglite' ? 2 : 4),
    leaseMs: config.fundingLeaseMs,
  };
}

/** The submission pipeline's settings: its look-ups batch as the committer does. */
function pipelineSettingsOf(config: Config, db: Db, fundingOwner: string): PipelineSettings {
  const { maxBatch, maxInFlight, windowMs } = committerSettingsOf(config, db);
  return {
    maxBatch,
    maxInFlight,
    windowMs,
    cosignThreads: config.cosignThreads,
    funding: {
      leaseMs: config.fundingLeaseMs,
      keepEveryMs: config.fundingLeaseKeepMs,
      minLeased: config.fundingLeaseMinOutputs,
      maxLeased: config.fundingLeaseMaxOutputs,
      refillWaitMs: config.fundingRefillWaitMs,
      owner: fundingOwner,
    },
    share: { sharePercent: config.fundingKeySharePercent, lowWater: config.fundingPoolLowWater },
  };
}
