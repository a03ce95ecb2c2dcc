// An api process's way to the deployment's writer (docs/adr/0007-one-writer-per-deployment.md).
// What the process would write itself (cosigned submissions, broadcast answers) goes to the
// writer in batches, one request per batch, so the writer's transactions hold every process's
// items. The writer is found in the database (store/submissions/writer-registry.ts), looked up again every
// `refreshMs`. Safety never rests on it: every write is the same set-based statement wherever it
// runs, so when no writer is registered, or a request to it fails, the process writes the batch
// itself, as it did before there was a writer. A submission the writer committed before its
// answer was lost is found by its ticket id when written again, and answered as created.
import { Agent, request } from 'node:http';
import { createBatcher } from '../process/batcher.js';
import type { Logger } from '../process/logger.js';
import type { Db } from '../store/db/db.js';
import type { Submission, SubmissionVerdict } from '../store/submissions/submission-writes.js';
import { liveWriter, type WriterEntry } from '../store/submissions/writer-registry.js';
import type { LedgerUpdate } from '../usecases/track/apply-ledger-status.js';
import { WRITER_PATHS } from './writer-server.js';
import { writerToken, writerTokenHash } from './writer-token.js';
import { decodeVerdict, encodeSubmission } from './writer-wire.js';

export interface LocalWrites {
  commit(submission: Submission): Promise<SubmissionVerdict>;
  applyUpdates(updates: readonly LedgerUpdate[]): Promise<void>;
}

export interface WriterLink extends LocalWrites {
  /** Looks the writer up now (at start; then every refreshMs on its own). */
  refresh(): Promise<void>;
  /** The writer's URL this process sends to now; null: it writes itself. */
  current(): string | null;
  /** Items sent through the writer and written here, since the start. */
  counts(): { readonly viaWriter: number; readonly local: number };
  close(): Promise<void>;
}

export interface WriterLinkSettings {
  /** How often the registry is read again, ms; also how long a writer that failed is passed by. */
  readonly refreshMs: number;
  /** How long a request to the writer may take before this process writes the batch itself, ms. */
  readonly timeoutMs: number;
}

/** Most items in one request to the writer. */
const MAX_BATCH = 256;
/**
 * Requests in flight to the writer at once, per kind: one, so that what arrives while a request
 * is out gathers into the next (natural batching), as the committer's own batches do.
 */
const IN_FLIGHT = 1;

export function createWriterLink(deps: {
  readonly db: Db;
  readonly now: () => Date;
  readonly log: Logger;
  readonly local: LocalWrites;
  readonly settings: WriterLinkSettings;
  /** The approver key: the writer's token is derived from it and the writer's instance id. */
  readonly approverKey: Uint8Array;
}): WriterLink {
  const { log, local, settings } = deps;
  const agent = new Agent({ keepAlive: true, maxSockets: 2 * IN_FLIGHT });
  let writer: (WriterEntry & { readonly token: string }) | null = null;
  let passedByUntil = 0;
  let refusedInstance: string | null = null;
  const counted = { viaWriter: 0, local: 0 };

  const refresh = async () => {
    try {
      const found = await liveWriter(deps.db, deps.now());
      const token = found === null ? null : writerToken(deps.approverKey, found.instance);
      // A writer started with another approver key: its token is not ours, so it is passed by.
      const usableFound =
        found !== null && token !== null && writerTokenHash(token) === found.tokenHash
          ? { ...found, token }
          : null;
      if (found !== null && usableFound === null && refusedInstance !== found.instance) {
        refusedInstance = found.instance;
        log.error({ writer: found.url }, 'the registered writer holds another approver key; writing here');
      }
      if (usableFound?.url !== writer?.url)
        log.info({ writer: usableFound?.url ?? null }, 'the writer this process sends to');
      writer = usableFound;
    } catch (err) {
      log.warn({ err }, 'looking up the writer failed; keeping the last one known');
    }
  };
  const timer = setInterval(() => void refresh(), settings.refreshMs);
  timer.unref();

  const usable = () => (writer !== null && Date.now() >= passedByUntil ? writer : null);

  const passBy = (target: WriterEntry & { readonly token: string }, err: unknown) => {
    if (Date.now() >= passedByUntil)
      log.warn(
        { writer: target.url, err: err instanceof Error ? err.message : String(err) },
        'the writer did not answer; this process writes its batches itself meanwhile',
      );
    passedByUntil = Date.now() + settings.refreshMs;
  };

  const post = (target: WriterEntry & { readonly token: string }, path: string, body: unknown) =>
    new Promise<unknown>((resolve, reject) => {
      const text = JSON.stringify(body);
      const req = request(
        `${target.url}${path}`,
        {
          method: 'POST',
          agent,
          timeout: settings.timeoutMs,
          headers: {
            authorization: `Bearer ${target.token}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(text),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const answer = Buffer.concat(chunks).toString('utf8');
            if (res.statusCode !== 200)
              return reject(new Error(`writer answered ${res.statusCode}: ${answer}`));
            try {
              resolve(JSON.parse(answer));
            } catch (err) {
              reject(err);
            }
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer in ${settings.timeoutMs} ms`)));
      req.on('error', reject);
      req.end(text);
    });

  /** Written here: a submission the writer already committed comes back as a duplicate of itself. */
  const commitHere = async (s: Submission): Promise<SubmissionVerdict> => {
    counted.local++;
    const verdict = await local.commit(s);
    return verdict.kind === 'duplicate' && verdict.ticketId === s.ticketId ? { kind: 'created' } : verdict;
  };

  const submissions = createBatcher<Submission, SubmissionVerdict>(
    async (batch) => {
      const target = usable();
      if (target !== null) {
        try {
          const answer = await post(target, WRITER_PATHS.submissions, {
            submissions: batch.map(encodeSubmission),
          });
          const verdicts = (answer as { verdicts?: unknown }).verdicts;
          if (!Array.isArray(verdicts) || verdicts.length !== batch.length)
            throw new Error('the writer answered a batch with the wrong number of verdicts');
          counted.viaWriter += batch.length;
          return verdicts.map(decodeVerdict);
        } catch (err) {
          passBy(target, err);
        }
      }
      return Promise.all(batch.map(commitHere));
    },
    { maxBatch: MAX_BATCH, maxInFlight: IN_FLIGHT, sameTurn: true },
  );

  const updates = createBatcher<readonly LedgerUpdate[], void>(
    async (groups) => {
      const all = groups.flat();
      const target = usable();
      if (target !== null) {
        try {
          await post(target, WRITER_PATHS.ledgerUpdates, { updates: all });
          counted.viaWriter += all.length;
          return groups.map(() => undefined);
        } catch (err) {
          passBy(target, err);
        }
      }
      counted.local += all.length;
      await local.applyUpdates(all);
      return groups.map(() => undefined);
    },
    { maxBatch: MAX_BATCH, maxInFlight: IN_FLIGHT, sameTurn: true },
  );

  return {
    commit: (s) => submissions.add(s),
    applyUpdates: async (list) => {
      if (list.length > 0) await updates.add(list);
    },
    refresh,
    current: () => usable()?.url ?? null,
    counts: () => ({ ...counted }),
    async close() {
      clearInterval(timer);
      await submissions.drain();
      await updates.drain();
      agent.destroy();
    },
  };
}
