// Callbacks as ARC sends them: POST JSON to the X-CallbackUrl given with the transaction, the
// X-CallbackToken as `Authorization: Bearer`, every status with X-FullStatusUpdates, otherwise
// only REJECTED, MINED_IN_STALE_BLOCK and MINED. Each target gets its statuses in order; a
// failed delivery (non-2xx, network error, timeout) is retried a few times with backoff, then
// dropped. Registrations live in memory: after a restart, polling is the guarantee (as with ARC).
import type { ArcTxStatus } from '../arc/arc-status.js';
import { type ArcStatusBody, callbackBody } from './arc-responses.js';

export interface CallbackTarget {
  readonly url: string;
  readonly token?: string;
  readonly fullStatusUpdates: boolean;
}

export interface CallbackSenderOptions {
  /** Retries after the first attempt. Default 3. */
  readonly retries?: number;
  /** First retry delay; doubles on each retry. Default 200 ms. */
  readonly retryDelayMs?: number;
  /** Per attempt. Default 5000 ms (ARC's). */
  readonly timeoutMs?: number;
  readonly fetch?: typeof fetch;
}

const FINAL_NOTICES: ReadonlySet<ArcTxStatus> = new Set(['REJECTED', 'MINED_IN_STALE_BLOCK', 'MINED']);

export class ArcCallbackSender {
  private readonly targets = new Map<string, CallbackTarget[]>();
  private readonly queues = new Map<string, Promise<void>>();
  private readonly stop = new AbortController();
  private readonly retries: number;
  private readonly retryDelayMs: number;
  private readonly timeoutMs: number;
  private readonly fetch: typeof fetch;

  constructor(opts: CallbackSenderOptions = {}) {
    this.retries = opts.retries ?? 3;
    this.retryDelayMs = opts.retryDelayMs ?? 200;
    this.timeoutMs = opts.timeoutMs ?? 5000;
    this.fetch = opts.fetch ?? globalThis.fetch;
  }

  /** Registers a target for `txid` (once per URL and token). */
  register(txid: string, target: CallbackTarget): void {
    const list = this.targets.get(txid) ?? [];
    if (!list.some((t) => t.url === target.url && t.token === target.token)) list.push(target);
    this.targets.set(txid, list);
  }

  /** Sends `body` to the targets of its txid that want this status. */
  notify(body: ArcStatusBody, only?: CallbackTarget): void {
    for (const target of only === undefined ? (this.targets.get(body.txid) ?? []) : [only]) {
      if (!target.fullStatusUpdates && !FINAL_NOTICES.has(body.txStatus)) continue;
      const key = `${body.txid} ${target.url}`;
      const previous = this.queues.get(key) ?? Promise.resolve();
      const next = previous.then(() => this.deliver(target, callbackBody(body)));
      this.queues.set(key, next);
      void next.finally(() => {
        if (this.queues.get(key) === next) this.queues.delete(key);
      });
    }
  }

  /** Stops retrying and waits for deliveries under way. */
  async close(): Promise<void> {
    this.stop.abort();
    await Promise.allSettled([...this.queues.values()]);
  }

  private async deliver(target: CallbackTarget, body: Record<string, unknown>): Promise<void> {
    for (let attempt = 0; attempt <= this.retries && !this.stop.signal.aborted; attempt++) {
      if (attempt > 0) await sleep(this.retryDelayMs * 2 ** (attempt - 1), this.stop.signal);
      try {
        const res = await this.fetch(target.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(target.token !== undefined && { authorization: `Bearer ${target.token}` }),
          },
          body: JSON.stringify(body),
          redirect: 'manual',
          signal: AbortSignal.any([this.stop.signal, AbortSignal.timeout(this.timeoutMs)]),
        });
        await res.body?.cancel();
        if (res.status >= 200 && res.status < 300) return;
      } catch {
        // Network error or timeout: retried like a non-2xx answer.
      }
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
