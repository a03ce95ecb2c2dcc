// The writer's internal HTTP server (docs/adr/0007-one-writer-per-deployment.md): api processes
// post batches of cosigned submissions and of ledger updates; each item joins the writer's own
// batches, so one transaction holds what every api process sent meanwhile, and the answer goes
// back once it committed. Not the public API: node:http without a framework (two routes, one
// bearer token, JSON both ways), bound to a private address (loopback unless configured
// otherwise). A body that fails to decode, or whose submissions or updates fail the writer's own
// checks (`check*`: an internal hop trusts nothing it could check), is refused whole (400); a
// write that fails is a 500, and the caller writes the batch itself.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bearerMatches } from '../crypto/same-secret.js';
import type { Logger } from '../process/logger.js';
import { readBodyWithin } from '../process/request-body.js';
import type { Submission, SubmissionVerdict } from '../store/submissions/submission-writes.js';
import type { LedgerUpdate } from '../usecases/track/apply-ledger-status.js';
import { decodeLedgerUpdate, decodeSubmission, WireError } from './writer-wire.js';

export const WRITER_PATHS = { submissions: '/submissions', ledgerUpdates: '/ledger-updates' } as const;

/** Most submissions one request carries (an api process's batch: writer-link.ts sends at most 256). */
const MAX_SUBMISSIONS = 256;
/** Most ledger updates one request carries (256 broadcast batches of at most 256 answers each). */
const MAX_UPDATES = 256 * 256;
/** Largest body read: 256 submissions of the largest transaction a client may send, as hex. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

export interface WriterServerDeps {
  readonly token: string;
  readonly log: Logger;
  /** What the writer derives from the submissions sent; throws WireError to refuse the batch. */
  readonly checkSubmissions: (claimed: readonly Submission[]) => Promise<Submission[]>;
  /** The updates the writer writes for those sent; throws WireError to refuse the batch. */
  readonly checkUpdates: (sent: readonly LedgerUpdate[]) => Promise<LedgerUpdate[]>;
  readonly commit: (submission: Submission) => Promise<SubmissionVerdict>;
  readonly applyUpdates: (updates: readonly LedgerUpdate[]) => Promise<void>;
}

export interface WriterServer {
  /** Base URL it listens on. */
  readonly url: string;
  /** Stops taking requests and waits for those in flight. */
  close(): Promise<void>;
}

class BodyTooLarge extends Error {}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const body = await readBodyWithin(req, MAX_BODY_BYTES);
  if (body === null) throw new BodyTooLarge();
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new WireError('the body is not JSON');
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function listOf(body: unknown, field: string, most: number): unknown[] {
  const value =
    typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[field] : undefined;
  if (!Array.isArray(value)) throw new WireError(`the body has no ${field} array`);
  if (value.length > most) throw new WireError(`${value.length} ${field}, more than ${most}`);
  return value;
}

export async function startWriterServer(
  deps: WriterServerDeps,
  listen: { readonly host: string; readonly port: number },
): Promise<WriterServer> {
  let stopping = false;
  let inFlight = 0;
  let drained: (() => void) | null = null;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (stopping) return send(res, 503, { error: 'the writer is stopping' });
    if (!bearerMatches(req.headers.authorization, deps.token))
      return send(res, 401, { error: 'unauthorized' });
    if (req.method !== 'POST') return send(res, 405, { error: 'POST only' });
    try {
      if (req.url === WRITER_PATHS.submissions) {
        const claimed = listOf(await readJson(req), 'submissions', MAX_SUBMISSIONS).map(decodeSubmission);
        const submissions = await deps.checkSubmissions(claimed);
        const verdicts = await Promise.all(submissions.map((s) => deps.commit(s)));
        return send(res, 200, { verdicts });
      }
      if (req.url === WRITER_PATHS.ledgerUpdates) {
        const sent = listOf(await readJson(req), 'updates', MAX_UPDATES).map(decodeLedgerUpdate);
        const updates = await deps.checkUpdates(sent);
        if (updates.length > 0) await deps.applyUpdates(updates);
        return send(res, 200, { applied: updates.length });
      }
      return send(res, 404, { error: 'no such path' });
    } catch (err) {
      if (err instanceof WireError) {
        deps.log.warn({ path: req.url, reason: err.message }, 'the writer refused a batch');
        return send(res, 400, { error: err.message });
      }
      if (err instanceof BodyTooLarge) return send(res, 413, { error: 'body too large' });
      deps.log.error({ err, path: req.url }, 'the writer could not write a batch; its sender writes it');
      return send(res, 500, { error: 'the write failed' });
    }
  };

  const server: Server = createServer((req, res) => {
    inFlight++;
    void handle(req, res)
      .catch((err) => {
        deps.log.error({ err }, 'writer request failed');
        if (!res.headersSent) send(res, 500, { error: 'internal' });
      })
      .finally(() => {
        inFlight--;
        if (inFlight === 0) drained?.();
      });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    async close() {
      stopping = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      if (inFlight > 0) await new Promise<void>((resolve) => (drained = resolve));
      server.closeAllConnections();
      await closed;
    },
  };
}
