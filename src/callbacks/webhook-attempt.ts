// One POST of a callback through undici's dispatcher, without the request() API's per-call
// machinery: no AbortController and no listener on the caller's signal per attempt, no stream
// for the answer. The answer's first `maxBodyBytes` are kept, the rest cut off with the
// connection. `abort` ends the attempt at once, wherever it is (queued for a connection,
// sending, waiting for the answer, reading it): its promise settles then, and undici drops the
// request when it reaches it. Measured in bench:callbacks: the request() API with a controller,
// a deadline listener and a streamed answer cost the deliverer about a seventh of its CPU per
// event.
import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';

export type AttemptEnd =
  | {
      readonly kind: 'answered';
      readonly status: number;
      readonly retryAfter: string | undefined;
      /** When the status came (performance.now()). */
      readonly answeredAt: number;
      /** The start of the answer's body (at most the cap). */
      readonly body: Buffer;
    }
  | { readonly kind: 'failed'; readonly error: unknown };

export interface AttemptRequest {
  readonly origin: string;
  /** Path and query. */
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly maxBodyBytes: number;
}

/** An attempt in flight: its end, and a way to cut it short. */
export interface Attempt {
  readonly ended: Promise<AttemptEnd>;
  abort(reason: Error): void;
}

class CappedAnswer implements Dispatcher.DispatchHandler {
  #controller: Dispatcher.DispatchController | null = null;
  #cancelled: Error | null = null;
  #status = 0;
  #answeredAt = 0;
  #retryAfter: string | undefined;
  #chunks: Buffer[] = [];
  #size = 0;
  #done = false;

  constructor(
    private readonly maxBytes: number,
    private readonly settle: (end: AttemptEnd) => void,
  ) {}

  cancel(reason: Error): void {
    if (this.#done) return;
    this.#cancelled = reason;
    // Cut while the answer's body still came: the status counts, as for a body cut short.
    this.#finish(this.#status === 0 ? { kind: 'failed', error: reason } : this.#answer());
    this.#controller?.abort(reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#cancelled !== null) controller.abort(this.#cancelled);
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (statusCode < 200) return; // informational: the answer is still to come
    this.#status = statusCode;
    this.#answeredAt = performance.now();
    const retryAfter = headers['retry-after'];
    this.#retryAfter = Array.isArray(retryAfter) ? retryAfter[0] : retryAfter;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#done) return;
    this.#chunks.push(chunk);
    this.#size += chunk.length;
    if (this.#size < this.maxBytes) return;
    // Enough read: the answer counts, the rest is dropped with the connection.
    this.#finish(this.#answer());
    controller.abort(new Error('answer cut at the cap'));
  }

  onResponseEnd(): void {
    this.#finish(this.#answer());
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    // A body cut short after the status came does not change the status.
    this.#finish(this.#status === 0 ? { kind: 'failed', error } : this.#answer());
  }

  #answer(): AttemptEnd {
    const body = this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks);
    return {
      kind: 'answered',
      status: this.#status,
      retryAfter: this.#retryAfter,
      answeredAt: this.#answeredAt,
      body: body.subarray(0, this.maxBytes),
    };
  }

  #finish(end: AttemptEnd): void {
    if (this.#done) return;
    this.#done = true;
    this.settle(end);
  }
}

/** Starts one POST on `dispatcher`; a dispatcher that refuses at once ends it failed. */
export function startAttempt(dispatcher: Dispatcher, req: AttemptRequest): Attempt {
  let settle!: (end: AttemptEnd) => void;
  const ended = new Promise<AttemptEnd>((resolve) => {
    settle = resolve;
  });
  const answer = new CappedAnswer(req.maxBodyBytes, settle);
  try {
    dispatcher.dispatch(
      { origin: req.origin, path: req.path, method: 'POST', headers: req.headers, body: req.body },
      answer,
    );
  } catch (error) {
    settle({ kind: 'failed', error });
  }
  return { ended, abort: (reason) => answer.cancel(reason) };
}
