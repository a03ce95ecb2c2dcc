// The writer role (docs/adr/0007-one-writer-per-deployment.md): one process per deployment that
// writes the api processes' transfers and broadcast answers in batches shared by all of them.
// It starts its internal server, registers it in the database under a lease it renews, and
// refuses to start while another writer's lease is live. At the stop it gives the registration
// up first (api processes go back to writing themselves), then answers what is in flight.
import { randomBytes } from 'node:crypto';
import type { Parts } from '../compose.js';
import { uuidv7 } from '../crypto/random-id.js';
import { createBatcher } from '../process/batcher.js';
import {
  holdWriterEntry,
  releaseWriterEntry,
  type WriterEntry,
} from '../store/submissions/writer-registry.js';
import { applyLedgerStatuses, type LedgerUpdate } from '../usecases/track/apply-ledger-status.js';
import { startWriterServer } from '../writer/writer-server.js';

/** How long the registration stays live without a renewal, ms (a killed writer is passed by after it). */
const WRITER_LEASE_MS = 10_000;
/** How often the writer renews its registration, ms. */
const RENEW_EVERY_MS = 3_000;
/** Most api batches of ledger updates written in one transaction. */
const MAX_UPDATE_GROUPS = 64;

export interface WriterRole {
  readonly url: string;
  stop(): Promise<void>;
}

export async function startWriterRole(parts: Parts): Promise<WriterRole> {
  const { config, logger, db, ctx, committer } = parts;
  if (committer === null) throw new Error('the writer role needs the committer');
  const updates = createBatcher<readonly LedgerUpdate[], void>(
    async (groups) => {
      await applyLedgerStatuses(ctx, groups.flat());
      return groups.map(() => undefined);
    },
    { maxBatch: MAX_UPDATE_GROUPS, sameTurn: true },
  );
  const token = randomBytes(32).toString('base64url');
  const server = await startWriterServer(
    { token, log: logger, commit: (s) => committer.add(s), applyUpdates: (u) => updates.add(u) },
    { host: config.writerHost, port: config.writerPort },
  );
  const entry: WriterEntry = { url: server.url, token, instance: uuidv7() };
  const hold = () => {
    const now = ctx.now();
    return holdWriterEntry(db, entry, now, new Date(now.getTime() + WRITER_LEASE_MS));
  };
  try {
    if (!(await hold()))
      throw new Error(
        'another writer is registered for this database and its lease is live: a deployment runs one writer',
      );
  } catch (err) {
    await server.close();
    throw err;
  }
  let lost = false;
  const renewer = setInterval(() => {
    hold().then(
      (held) => {
        if (!held && !lost) logger.error({ writer: entry.url }, 'another writer took the registration over');
        lost = !held;
      },
      (err) => logger.warn({ err }, 'renewing the writer registration failed; trying again'),
    );
  }, RENEW_EVERY_MS);
  logger.info({ writer: entry.url }, 'writer registered');
  return {
    url: server.url,
    async stop() {
      clearInterval(renewer);
      await releaseWriterEntry(db, entry.instance).catch((err) =>
        logger.warn({ err }, 'giving the writer registration up failed; it lapses on its own'),
      );
      await server.close();
      await updates.drain();
    },
  };
}
