// One POST of a callback over undici: the address guard at connect time (names through the
// guarded lookup, literals checked here since net.connect does no lookup for them), no
// redirects (a dispatch never follows them), a deadline for the whole exchange, and a capped
// read of the answer (a few hundred bytes kept for the attempt's error text). The attempt
// itself is webhook-attempt.ts.
import { performance } from 'node:perf_hooks';
import { Agent } from 'undici';
import {
  type CallbackAllowList,
  CallbackRefusedError,
  checkLiteralHost,
  guardedLookup,
  type Resolver,
  systemResolver,
} from './address-guard.js';
import { type Attempt, startAttempt } from './webhook-attempt.js';

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
  // The deadline of an attempt is the sender's own timer (below), over the whole exchange;
  // undici's per-phase timeouts are only a backstop, set later so that they never win the race
  // against that timer on a busy event loop and record another reason than the deadline.
  const backstopMs = timeoutMs + 1_000;
  const agent = new Agent({
    connect: { lookup: guardedLookup(options.allow, options.resolve ?? systemResolver), timeout: backstopMs },
    connections: options.connectionsPerOrigin ?? 8,
    headersTimeout: backstopMs,
    bodyTimeout: backstopMs,
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

  /** Attempts in flight by the caller's signal: one listener per signal cuts them all short. */
  const inFlight = new WeakMap<AbortSignal, Set<Attempt>>();
  function follow(signal: AbortSignal, attempt: Attempt): () => void {
    let attempts = inFlight.get(signal);
    if (attempts === undefined) {
      const set = new Set<Attempt>();
      attempts = set;
      inFlight.set(signal, set);
      signal.addEventListener(
        'abort',
        () => {
          for (const a of set) a.abort(new Error('the sender was stopped'));
          set.clear();
        },
        { once: true },
      );
    }
    attempts.add(attempt);
    return () => attempts.delete(attempt);
  }

  async function send(req: WebhookRequest): Promise<SendResult> {
    const started = performance.now();
    const url = targetOf(req.url);
    if (typeof url === 'string') return { kind: 'refused', reason: url, latencyMs: 0 };
    if (aborted(req.signal)) return { kind: 'aborted' };
    const attempt = startAttempt(agent, {
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      headers: req.headers,
      body: req.body,
      maxBodyBytes,
    });
    // The deadline of the whole exchange: queued, connecting, sending, answering, reading.
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      attempt.abort(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const unfollow = req.signal === undefined ? null : follow(req.signal, attempt);
    const end = await attempt.ended;
    clearTimeout(timer);
    unfollow?.();
    if (end.kind === 'answered') {
      return {
        kind: 'answered',
        status: end.status,
        retryAfter: end.retryAfter,
        latencyMs: end.answeredAt - started,
        excerpt: excerptOf(end.body),
      };
    }
    const latencyMs = performance.now() - started;
    // Read again: the signal may have aborted while the attempt ran.
    if (aborted(req.signal)) return { kind: 'aborted' };
    const refused = refusalIn(end.error);
    if (refused !== null) return { kind: 'refused', reason: refused, latencyMs };
    const error = timedOut ? `no answer within ${timeoutMs} ms` : describe(end.error);
    return { kind: 'no-answer', error, latencyMs };
  }

  return { send, close: () => agent.close() };
}

/** The start of an answer's body as text for the attempt's record: printable, trimmed. */
function excerptOf(body: Buffer): string {
  return body
    .toString('utf8')
    .slice(0, EXCERPT_CHARS)
    .replace(/[^\x20-\x7e\u00a0-\uffff]+/g, ' ')
    .trim();
}

function aborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
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
