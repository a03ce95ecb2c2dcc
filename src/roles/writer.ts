// The writer role (docs/adr/0007-one-writer-per-deployment.md): one process per deployment that
// writes the api processes' transfers and broadcast answers in batches shared by all of them.
// It starts its internal server and registers it in the database under a lease it renews. Its
// identity is its host and data folder (one writer per folder: a lock file), so a writer killed
// and restarted takes its own lease back at once. While another writer's lease is live it waits,
// registering as soon as that lease lapses, and the process's other roles run meanwhile: a
// writer that cannot register stops nothing (api processes write themselves without one). At the
// stop it gives the registration up first (api processes go back to writing themselves), then
// answers what is in flight.
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import type { Parts } from '../compose.js';
import { createBatcher } from '../process/batcher.js';
import { takePidLock } from '../process/pid-lock.js';
import { submissionLookups } from '../store/submissions/submission-lookups.js';
import type { Submission } from '../store/submissions/submission-writes.js';
import {
  holdWriterEntry,
  releaseWriterEntry,
  type WriterEntry,
} from '../store/submissions/writer-registry.js';
import { applyLedgerStatuses, type LedgerUpdate } from '../usecases/track/apply-ledger-status.js';
import { checkSubmission } from '../writer/submission-check.js';
import { checkLedgerUpdates, UpdateRefused } from '../writer/update-check.js';
import { startWriterServer } from '../writer/writer-server.js';
import { writerToken, writerTokenHash } from '../writer/writer-token.js';
import { WireError } from '../writer/writer-wire.js';

/** How long the registration stays live without a renewal, ms (a killed writer is passed by after it). */
const WRITER_LEASE_MS = 10_000;
/** How often the writer renews its registration, ms. */
const RENEW_EVERY_MS = 3_000;
/** How far a submission's time may be from the writer's clock, ms (processes of one deployment). */
const MAX_CLOCK_SKEW_MS = 30_000;
/** Most api batches of ledger updates written in one transaction. */
const MAX_UPDATE_GROUPS = 64;

export interface WriterRole {
  readonly url: string;
  /** Whether it holds the registration: renewed within the lease, not taken over (readiness). */
  registered(): boolean;
  stop(): Promise<void>;
}

/** A writer's identity: its host and data folder, the same after a restart. */
export function writerInstanceOf(dataDir: string, host: string = hostname()): string {
  return createHash('sha256')
    .update(`tokenproxy writer\n${host}\n${resolve(dataDir)}`)
    .digest('hex')
    .slice(0, 32);
}

export async function startWriterRole(parts: Parts): Promise<WriterRole> {
  const { config, logger, db, ctx, committer } = parts;
  if (committer === null) throw new Error('the writer role needs the committer');
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const lock = takePidLock(
    join(config.dataDir, 'writer.lock'),
    (pid) =>
      new Error(
        `the data folder ${config.dataDir} has a writer already (process ${pid}): a writer's identity is its folder; give each writer a folder of its own`,
      ),
  );
  const updates = createBatcher<readonly LedgerUpdate[], void>(
    async (groups) => {
      await applyLedgerStatuses(ctx, groups.flat());
      return groups.map(() => undefined);
    },
    { maxBatch: MAX_UPDATE_GROUPS, sameTurn: true },
  );
  const instance = writerInstanceOf(config.dataDir);
  const token = writerToken(ctx.keys.approver, instance);
  const bounds = {
    maxClockSkewMs: MAX_CLOCK_SKEW_MS,
    maxFirstLookMs: ctx.tracker.firstLookAfterMs + MAX_CLOCK_SKEW_MS,
  };
  // Every submission is checked against the cosigned transaction and the index before it joins
  // a batch (src/writer/submission-check.ts); one that fails refuses its request whole.
  const checkSubmissions = async (claimed: readonly Submission[]) => {
    const outpoints = [...new Set(claimed.flatMap((s) => s.inputs.map((o) => `${o.txid}_${o.vout}`)))];
    const { known } = await submissionLookups(db, [], outpoints).catch(() => {
      throw new WireError('an input is not an outpoint');
    });
    const now = ctx.now();
    return claimed.map((s, n) => {
      const checked = checkSubmission(s, known, ctx.token, now, bounds);
      if (!checked.ok) throw new WireError(`submissions[${n}]: ${checked.reason}`);
      return checked.submission;
    });
  };
  const checkUpdates = async (sent: readonly LedgerUpdate[]) => {
    try {
      return (await checkLedgerUpdates(sent, ctx.ledger)).write;
    } catch (err) {
      if (err instanceof UpdateRefused) throw new WireError(err.message);
      throw err;
    }
  };
  const server = await startWriterServer(
    {
      token,
      log: logger,
      checkSubmissions,
      checkUpdates,
      commit: (s) => committer.add(s),
      applyUpdates: (u) => updates.add(u),
    },
    { host: config.writerHost, port: config.writerPort },
  );
  const entry: WriterEntry = { url: server.url, tokenHash: writerTokenHash(token), instance };
  const hold = () => {
    const now = ctx.now();
    return holdWriterEntry(db, entry, now, new Date(now.getTime() + WRITER_LEASE_MS));
  };
  const first = await hold().catch((err: unknown) => {
    logger.error({ err }, 'registering the writer failed; trying again');
    return false;
  });
  let lost = !first;
  let heldAt = first ? Date.now() : 0;
  if (first) logger.info({ writer: entry.url, instance }, 'writer registered');
  else
    logger.warn(
      { writer: entry.url, instance },
      "another writer holds the registration: waiting for its lease to lapse (this process's other roles run meanwhile)",
    );
  const renewer = setInterval(() => {
    hold().then(
      (held) => {
        if (held) heldAt = Date.now();
        if (held && lost) logger.info({ writer: entry.url, instance }, 'writer registered');
        if (!held && !lost) logger.error({ writer: entry.url }, 'another writer took the registration over');
        lost = !held;
      },
      (err) => logger.warn({ err }, 'renewing the writer registration failed; trying again'),
    );
  }, RENEW_EVERY_MS);
  return {
    url: server.url,
    registered: () => !lost && Date.now() - heldAt < WRITER_LEASE_MS,
    async stop() {
      clearInterval(renewer);
      await releaseWriterEntry(db, entry.instance).catch((err) =>
        logger.warn({ err }, 'giving the writer registration up failed; it lapses on its own'),
      );
      await server.close();
      await updates.drain();
      lock.release();
    },
  };
}
