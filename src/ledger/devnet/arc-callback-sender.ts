// Callbacks as ARC sends them: POST JSON to the X-CallbackUrl given with the transaction, the
// X-CallbackToken as `Authorization: Bearer`, every status with X-FullStatusUpdates, otherwise
// only REJECTED, MINED_IN_STALE_BLOCK and MINED. Each target gets its statuses in order; a
// failed delivery (non-2xx, network error, timeout) is retried a few times with backoff, then
// dropped. With X-CallbackBatch a target gets `{count, callbacks: [...]}` instead: the statuses
// told within `batchWindowMs` go in one POST (in order). Registrations live in memory: after a
// restart, polling is the guarantee (as with ARC).
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { setTimeout as delay } from 'node:timers/promises';
import type { ArcTxStatus } from '../arc/arc-status.js';
import { type ArcStatusBody, callbackBody } from './arc-responses.js';

export interface CallbackTarget {
  readonly url: string;
  readonly token?: string;
  readonly fullStatusUpdates: boolean;
  /** X-CallbackBatch: statuses are posted in batches `{count, callbacks}`. */
  readonly batch?: boolean;
}

export interface CallbackSenderOptions {
  /** Retries after the first attempt. Default 3. */
  readonly retries?: number;
  /** First retry delay; doubles on each retry. Default 200 ms. */
  readonly retryDelayMs?: number;
  /** Per attempt. Default 5000 ms (ARC's). */
  readonly timeoutMs?: number;
  /** Posts with this instead of node:http(s) (keep-alive), e.g. a test's stand-in. */
  readonly fetch?: typeof fetch;
  /** How long a batch target's statuses are gathered before one POST. Default 50 ms. */
  readonly batchWindowMs?: number;
}

const FINAL_NOTICES: ReadonlySet<ArcTxStatus> = new Set(['REJECTED', 'MINED_IN_STALE_BLOCK', 'MINED']);

export class ArcCallbackSender {
  private readonly targets = new Map<string, CallbackTarget[]>();
  private readonly queues = new Map<string, Promise<void>>();
  /** Batch targets' statuses not yet posted, by target key. */
  private readonly gathered = new Map<
    string,
    { target: CallbackTarget; bodies: Record<string, unknown>[] }
  >();
  private readonly batchWindowMs: number;
  private readonly stop = new AbortController();
  private readonly retries: number;
  private readonly retryDelayMs: number;
  private readonly timeoutMs: number;
  private readonly post: Post;
  private readonly agents: { readonly http: HttpAgent; readonly https: HttpsAgent } | null;

  constructor(opts: CallbackSenderOptions = {}) {
    this.retries = opts.retries ?? 3;
    this.retryDelayMs = opts.retryDelayMs ?? 200;
    this.timeoutMs = opts.timeoutMs ?? 5000;
    if (opts.fetch !== undefined) {
      this.post = fetchPost(opts.fetch);
      this.agents = null;
    } else {
      // node:http rather than fetch: a POST costs a fraction of the CPU of undici's streams.
      const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
      this.post = nodePost(agents);
      this.agents = agents;
    }
    this.batchWindowMs = opts.batchWindowMs ?? 50;
  }

  /** Registers a target for `txid` (once per URL and token). */
  register(txid: string, target: CallbackTarget): void {
    const list = this.targets.get(txid) ?? [];
    if (!list.some((t) => t.url === target.url && t.token === target.token)) list.push(target);
    this.targets.set(txid, list);
  }

  /** Whether any target is registered for `txid` (a status of it may need sending). */
  hasTargets(txid: string): boolean {
    return this.targets.has(txid);
  }

  private enqueue(key: string, send: () => Promise<void>): void {
    const previous = this.queues.get(key) ?? Promise.resolve();
    const next = previous.then(send);
    this.queues.set(key, next);
    void next.finally(() => {
      if (this.queues.get(key) === next) this.queues.delete(key);
    });
  }

  /** Gathers `body` for a batch target; the first status of a window schedules its POST. */
  private gather(target: CallbackTarget, body: Record<string, unknown>): void {
    const key = `batch ${target.url} ${target.token ?? ''}`;
    const open = this.gathered.get(key);
    if (open !== undefined) {
      open.bodies.push(body);
      return;
    }
    const batch = { target, bodies: [body] };
    this.gathered.set(key, batch);
    const flush = () => {
      if (this.gathered.get(key) !== batch) return;
      this.gathered.delete(key);
      this.enqueue(key, () => this.deliver(target, { count: batch.bodies.length, callbacks: batch.bodies }));
    };
    // Registered as a queue entry too, so close() waits for it.
    this.enqueue(`${key} window`, () => sleep(this.batchWindowMs, this.stop.signal).then(flush));
  }

  /** Sends `body` to the targets of its txid that want this status. */
  notify(body: ArcStatusBody, only?: CallbackTarget): void {
    for (const target of only === undefined ? (this.targets.get(body.txid) ?? []) : [only]) {
      if (!target.fullStatusUpdates && !FINAL_NOTICES.has(body.txStatus)) continue;
      if (target.batch === true) {
        this.gather(target, callbackBody(body));
        continue;
      }
      this.enqueue(`${body.txid} ${target.url}`, () => this.deliver(target, callbackBody(body)));
    }
  }

  /** Stops retrying and waits for deliveries under way. */
  async close(): Promise<void> {
    this.stop.abort();
    while (this.queues.size > 0) await Promise.allSettled([...this.queues.values()]);
    this.agents?.http.destroy();
    this.agents?.https.destroy();
  }

  private async deliver(target: CallbackTarget, body: Record<string, unknown>): Promise<void> {
    for (let attempt = 0; attempt <= this.retries && !this.stop.signal.aborted; attempt++) {
      if (attempt > 0) await sleep(this.retryDelayMs * 2 ** (attempt - 1), this.stop.signal);
      try {
        const status = await this.post(
          target.url,
          {
            'content-type': 'application/json',
            ...(target.token !== undefined && { authorization: `Bearer ${target.token}` }),
          },
          JSON.stringify(body),
          AbortSignal.any([this.stop.signal, AbortSignal.timeout(this.timeoutMs)]),
        );
        if (status >= 200 && status < 300) return;
      } catch {
        // Network error or timeout: retried like a non-2xx answer.
      }
    }
  }
}

/**
 * Waits `ms`, or less if `signal` aborts. node:timers/promises removes its listener from the
 * signal when the wait ends: a listener left on the sender's long-lived stop signal by every batch
 * window and retry would pile up for the devnet's whole life.
 */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return delay(ms, undefined, { signal }).catch(() => undefined);
}

/** POSTs `body` to `url`; answers the HTTP status (redirects are not followed). */
type Post = (
  url: string,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
) => Promise<number>;

function fetchPost(post: typeof fetch): Post {
  return async (url, headers, body, signal) => {
    const res = await post(url, { method: 'POST', headers, body, redirect: 'manual', signal });
    await res.body?.cancel();
    return res.status;
  };
}

function nodePost(agents: { readonly http: HttpAgent; readonly https: HttpsAgent }): Post {
  return (url, headers, body, signal) =>
    new Promise<number>((resolve, reject) => {
      const target = new URL(url);
      const https = target.protocol === 'https:';
      const req = (https ? httpsRequest : httpRequest)(
        target,
        {
          method: 'POST',
          headers: { ...headers, 'content-length': Buffer.byteLength(body) },
          agent: https ? agents.https : agents.http,
          signal,
        },
        (res) => {
          // The answer's body is not read, only drained (the connection goes back to the pool).
          res.on('end', () => resolve(res.statusCode ?? 0));
          res.on('error', reject);
          res.on('close', () => {
            if (!res.complete) reject(new Error('the callback answer was cut off'));
          });
          res.resume();
        },
      );
      req.on('error', reject);
      req.end(body);
    });
}
