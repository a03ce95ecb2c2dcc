// HTTP to ARC with a timeout per attempt and retries with backoff (and jitter) on what may pass
// on a later try: network errors, timeouts, 5xx and 429 (its Retry-After honoured). Each retry
// sends the same request again, body byte for byte. After the last retry, or on 401/403 (a wrong
// API key will not get better), it throws LedgerUnavailableError. An attempt has a deadline
// of its own (its timer or the client's close() cut it through its own AbortController); the
// exchange itself goes through a transport (arc-transport.ts: undici, or a given fetch).
import { LedgerUnavailableError } from '../port.js';
import { type ArcTransport, fetchTransport, undiciTransport } from './arc-transport.js';

export interface ArcHttpOptions {
  readonly url: string;
  readonly apiKey?: string;
  /** A fetch to talk to ARC through (tests); default: undici's request (arc-transport.ts). */
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
  private readonly transport: ArcTransport;
  private readonly stop = new AbortController();
  private readonly underWay = new Set<AbortController>();
  private readonly headers: Readonly<Record<string, string>>;

  constructor(private readonly opts: ArcHttpOptions) {
    this.base = opts.url.replace(/\/+$/, '');
    this.transport = opts.fetch === undefined ? undiciTransport() : fetchTransport(opts.fetch);
    this.headers = {
      accept: 'application/json',
      ...(opts.apiKey !== undefined && { authorization: `Bearer ${opts.apiKey}` }),
    };
  }

  async request(method: 'GET' | 'POST', path: string, req: ArcRequest = {}): Promise<ArcReply> {
    const retries = this.opts.retries ?? 4;
    let lastProblem = '';
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (this.stop.signal.aborted) break;
      let retryAfterMs = 0;
      try {
        const res = await this.attempt(method, path, req);
        if (res.status === 401 || res.status === 403) {
          throw new LedgerUnavailableError(`ARC refused the API key (${res.status} on ${method} ${path})`);
        }
        if (res.status < 500 && res.status !== 429) return { status: res.status, body: parseBody(res.text) };
        lastProblem = `HTTP ${res.status}`;
        retryAfterMs = retryAfter(res.retryAfter);
      } catch (err) {
        if (err instanceof LedgerUnavailableError) throw err;
        lastProblem = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      }
      if (attempt < retries) await this.pause(Math.max(retryAfterMs, this.backoff(attempt)));
    }
    throw new LedgerUnavailableError(`ARC at ${this.base} unavailable (${method} ${path}: ${lastProblem})`);
  }

  /** Stops the attempts and retries under way (they end with LedgerUnavailableError). */
  close(): void {
    this.stop.abort();
    for (const attempt of this.underWay) attempt.abort();
    void this.transport.close().catch(() => undefined);
  }

  /**
   * One attempt, cut by its deadline or by close(). The attempts under way are a set that close()
   * cuts: no listener on the stop signal per attempt (many at once would trip Node's leak warning).
   */
  private async attempt(method: 'GET' | 'POST', path: string, req: ArcRequest) {
    const cut = new AbortController();
    const deadline = setTimeout(() => cut.abort(), this.opts.timeoutMs ?? 10_000);
    this.underWay.add(cut);
    try {
      return await this.transport.send({
        method,
        url: `${this.base}${path}`,
        headers: req.headers === undefined ? this.headers : { ...this.headers, ...req.headers },
        ...(req.body !== undefined && { body: req.body }),
        signal: cut.signal,
      });
    } finally {
      clearTimeout(deadline);
      this.underWay.delete(cut);
    }
  }

  private backoff(attempt: number): number {
    const base = Math.min(MAX_DELAY_MS, (this.opts.retryDelayMs ?? 250) * 2 ** attempt);
    return base * (0.75 + 0.5 * (this.opts.random ?? Math.random)());
  }

  /** Waits `ms`, or less when closed; the abort listener goes with the wait (one per retry would pile up). */
  private pause(ms: number): Promise<void> {
    if (this.stop.signal.aborted) return Promise.resolve(); // closed during the attempt
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
