// One POST of a callback over undici: the address guard at connect time (names through the
// guarded lookup, literals checked here since net.connect does no lookup for them), no
// redirects (undici's request never follows them), a deadline for the whole exchange, and a
// capped read of the answer (a few hundred bytes kept for the attempt's error text).
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import {
  type CallbackAllowList,
  CallbackRefusedError,
  checkLiteralHost,
  guardedLookup,
  type Resolver,
  systemResolver,
} from './address-guard.js';

export type SendResult =
  | {
      readonly kind: 'answered';
      readonly status: number;
      readonly retryAfter: string | undefined;
      readonly latencyMs: number;
      /** The start of the answer's body, for the attempt's record. */
      readonly excerpt: string;
    }
  /** Not sent: the address guard refused the target. */
  | { readonly kind: 'refused'; readonly reason: string; readonly latencyMs: number }
  /** No answer: unreachable, reset, timed out. */
  | { readonly kind: 'no-answer'; readonly error: string; readonly latencyMs: number }
  /** Cut short by the caller's signal (the deliverer is stopping). */
  | { readonly kind: 'aborted' };

export interface WebhookRequest {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  /** Aborts the attempt (the deliverer is stopping). */
  readonly signal?: AbortSignal;
}

export interface WebhookSender {
  send(req: WebhookRequest): Promise<SendResult>;
  close(): Promise<void>;
}

export interface WebhookSenderOptions {
  readonly allow: CallbackAllowList;
  readonly resolve?: Resolver;
  /** Deadline for the answer, from the start of the attempt (default 10 s). */
  readonly timeoutMs?: number;
  /** Most bytes of an answer read (default 4 KiB); the rest is dropped with the connection. */
  readonly maxBodyBytes?: number;
  /** Connections kept per receiver origin (default 8). */
  readonly connectionsPerOrigin?: number;
}

const EXCERPT_CHARS = 200;
const KEPT_TARGETS = 1024;

/** The URL to send to, or why not. */
function checkTarget(text: string, allow: CallbackAllowList): URL | string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'not a URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${url.protocol} is not http(s)`;
  const literal = checkLiteralHost(url.hostname, allow);
  if (literal !== null && !literal.ok) return literal.reason;
  return url;
}

export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxBodyBytes = options.maxBodyBytes ?? 4096;
  const agent = new Agent({
    connect: { lookup: guardedLookup(options.allow, options.resolve ?? systemResolver), timeout: timeoutMs },
    connections: options.connectionsPerOrigin ?? 8,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: 4_000,
  });

  /**
   * The checks of a callback URL that depend on its text alone (syntax, scheme, an IP literal's
   * verdict), kept per URL: they cannot change for the same text and allow-list. Names are
   * judged at connect time by the guarded lookup, for every connection.
   */
  const targets = new Map<string, URL | string>();
  function targetOf(text: string): URL | string {
    const kept = targets.get(text);
    if (kept !== undefined) return kept;
    const target = checkTarget(text, options.allow);
    if (targets.size >= KEPT_TARGETS) targets.delete(targets.keys().next().value!);
    targets.set(text, target);
    return target;
  }

  async function send(req: WebhookRequest): Promise<SendResult> {
    const started = performance.now();
    const latency = () => performance.now() - started;
    const url = targetOf(req.url);
    if (typeof url === 'string') return { kind: 'refused', reason: url, latencyMs: 0 };
    // One controller per attempt, cut by its deadline or the caller's signal (a plain timer
    // and listener: AbortSignal.timeout and AbortSignal.any cost more per request).
    const attempt = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      attempt.abort();
    }, timeoutMs);
    const stop = () => attempt.abort();
    req.signal?.addEventListener('abort', stop, { once: true });
    const signal = attempt.signal;
    try {
      const res = await request(url, {
        dispatcher: agent,
        method: 'POST',
        headers: req.headers,
        body: req.body,
        signal,
      });
      const latencyMs = latency();
      const excerpt = await readCapped(res.body, maxBodyBytes);
      const retryAfter = res.headers['retry-after'];
      return {
        kind: 'answered',
        status: res.statusCode,
        retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
        latencyMs,
        excerpt,
      };
    } catch (err) {
      if (req.signal?.aborted === true) return { kind: 'aborted' };
      const refused = refusalIn(err);
      if (refused !== null) return { kind: 'refused', reason: refused, latencyMs: latency() };
      const error = timedOut ? `no answer within ${timeoutMs} ms` : describe(err);
      return { kind: 'no-answer', error, latencyMs: latency() };
    } finally {
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', stop);
    }
  }

  return { send, close: () => agent.close() };
}

/** Reads up to `max` bytes and drops the rest (destroying the stream closes the connection). */
async function readCapped(
  body: AsyncIterable<Buffer> & { destroy(): unknown },
  max: number,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= max) break;
    }
  } catch {
    // a body cut short does not change the status
  } finally {
    if (size >= max) body.destroy();
  }
  return Buffer.concat(chunks)
    .subarray(0, max)
    .toString('utf8')
    .slice(0, EXCERPT_CHARS)
    .replace(/[^\x20-\x7e\u00a0-\uffff]+/g, ' ')
    .trim();
}

function refusalIn(err: unknown): string | null {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof CallbackRefusedError) return e.message;
  }
  return null;
}

function describe(err: unknown): string {
  const parts: string[] = [];
  for (let e = err, depth = 0; e instanceof Error && depth < 3; e = e.cause, depth++) {
    const code = (e as NodeJS.ErrnoException).code;
    parts.push(code !== undefined && !e.message.includes(code) ? `${code}: ${e.message}` : e.message);
  }
  return (parts.join(' <- ') || String(err)).slice(0, 300);
}
