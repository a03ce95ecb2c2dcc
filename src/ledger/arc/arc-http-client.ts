// HTTP to ARC with a timeout per attempt and retries with backoff (and jitter) on what may pass
// on a later try: network errors, timeouts, 5xx and 429 (its Retry-After honoured). Each retry
// sends the same request again, body byte for byte. After the last retry, or on 401/403 (a wrong
// API key will not get better), it throws LedgerUnavailableError.
import { LedgerUnavailableError } from '../port.js';

export interface ArcHttpOptions {
  readonly url: string;
  readonly apiKey?: string;
  readonly fetch?: typeof fetch;
  /** Per attempt. Default 10000 ms. */
  readonly timeoutMs?: number;
  /** Retries after the first attempt. Default 4. */
  readonly retries?: number;
  /** First retry delay; doubles each time up to 10 s. Default 250 ms. */
  readonly retryDelayMs?: number;
  /** Jitter source in [0, 1). Default Math.random. */
  readonly random?: () => number;
}

export interface ArcReply {
  readonly status: number;
  readonly body: unknown;
}

export interface ArcRequest {
  readonly body?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

const MAX_DELAY_MS = 10_000;

export class ArcHttpClient {
  private readonly base: string;
  private readonly fetch: typeof fetch;
  private readonly stop = new AbortController();

  constructor(private readonly opts: ArcHttpOptions) {
    this.base = opts.url.replace(/\/+$/, '');
    this.fetch = opts.fetch ?? globalThis.fetch;
  }

  async request(method: 'GET' | 'POST', path: string, req: ArcRequest = {}): Promise<ArcReply> {
    const retries = this.opts.retries ?? 4;
    let lastProblem = '';
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (this.stop.signal.aborted) break;
      let retryAfterMs = 0;
      try {
        const res = await this.fetch(`${this.base}${path}`, {
          method,
          headers: {
            accept: 'application/json',
            ...(this.opts.apiKey !== undefined && { authorization: `Bearer ${this.opts.apiKey}` }),
            ...req.headers,
          },
          ...(req.body !== undefined && { body: req.body }),
          signal: AbortSignal.any([this.stop.signal, AbortSignal.timeout(this.opts.timeoutMs ?? 10_000)]),
        });
        const text = await res.text();
        if (res.status === 401 || res.status === 403) {
          throw new LedgerUnavailableError(`ARC refused the API key (${res.status} on ${method} ${path})`);
        }
        if (res.status < 500 && res.status !== 429) return { status: res.status, body: parseBody(text) };
        lastProblem = `HTTP ${res.status}`;
        retryAfterMs = retryAfter(res.headers.get('retry-after'));
      } catch (err) {
        if (err instanceof LedgerUnavailableError) throw err;
        lastProblem = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      }
      if (attempt < retries) await this.pause(Math.max(retryAfterMs, this.backoff(attempt)));
    }
    throw new LedgerUnavailableError(`ARC at ${this.base} unavailable (${method} ${path}: ${lastProblem})`);
  }

  /** Stops retries under way (they end with LedgerUnavailableError). */
  close(): void {
    this.stop.abort();
  }

  private backoff(attempt: number): number {
    const base = Math.min(MAX_DELAY_MS, (this.opts.retryDelayMs ?? 250) * 2 ** attempt);
    return base * (0.75 + 0.5 * (this.opts.random ?? Math.random)());
  }

  /** Waits `ms`, or less when closed; the abort listener goes with the wait (one per retry would pile up). */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.stop.signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.stop.signal.addEventListener('abort', done, { once: true });
    });
  }
}

function parseBody(text: string): unknown {
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function retryAfter(header: string | null): number {
  if (header === null) return 0;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, 60_000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? 0 : Math.min(Math.max(0, date - Date.now()), 60_000);
}
