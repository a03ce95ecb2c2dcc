// Natural batching: what arrives while a batch is being worked on waits and forms the next
// batch, so a quiet service handles each item at once and a busy one pays one round trip, one
// lock and one commit for many items (TigerBeetle's batching). An optional window holds the
// first item of a batch a few milliseconds for company when nothing is in flight: needed where
// a batch's work never yields to I/O (PGlite runs on the main thread, so no request arrives
// while its transaction runs and natural batching alone would make batches of one).
export interface Batcher<I, O> {
  /** Adds an item to the next batch; resolves with its own result, rejects with its batch's error. */
  add(item: I): Promise<O>;
  /** Items waiting and in flight. */
  pending(): number;
  /** Resolves once nothing waits or runs. */
  drain(): Promise<void>;
}

export interface BatcherOptions {
  /** Most items in one batch. */
  readonly maxBatch: number;
  /** Batches run at once (1: strictly one after another). */
  readonly maxInFlight?: number;
  /** Milliseconds the first item of a batch waits for more when no batch is in flight (default 0). */
  readonly windowMs?: number;
  /** With no window: what arrives in the same turn of the event loop joins the first item. */
  readonly sameTurn?: boolean;
}

interface Waiting<I, O> {
  readonly item: I;
  readonly resolve: (value: O) => void;
  readonly reject: (err: unknown) => void;
}

/** `run` answers one result per item, in order. */
export function createBatcher<I, O>(
  run: (items: readonly I[]) => Promise<readonly O[]>,
  options: BatcherOptions,
): Batcher<I, O> {
  const maxInFlight = options.maxInFlight ?? 1;
  const windowMs = options.windowMs ?? 0;
  let queue: Waiting<I, O>[] = [];
  let inFlight = 0;
  let running = 0;
  let timer: NodeJS.Timeout | NodeJS.Immediate | null = null;
  let idle: (() => void)[] = [];

  const start = () => {
    timer = null;
    while (queue.length > 0 && inFlight < maxInFlight) {
      const batch = queue.slice(0, options.maxBatch);
      queue = queue.slice(batch.length);
      inFlight++;
      running += batch.length;
      void runBatch(batch);
    }
  };

  const schedule = () => {
    if (inFlight >= maxInFlight || timer !== null) return;
    if (queue.length >= options.maxBatch || inFlight > 0) start();
    else if (windowMs > 0) timer = setTimeout(start, windowMs);
    else if (options.sameTurn === true) timer = setImmediate(start);
    else start();
  };

  const runBatch = async (batch: Waiting<I, O>[]) => {
    try {
      const results = await run(batch.map((w) => w.item));
      if (results.length !== batch.length)
        throw new Error(`batch of ${batch.length} answered ${results.length} results`);
      for (const [i, w] of batch.entries()) w.resolve(results[i]!);
    } catch (err) {
      for (const w of batch) w.reject(err);
    } finally {
      inFlight--;
      running -= batch.length;
      // What queued meanwhile has waited its window already: it goes at once.
      if (queue.length > 0) start();
      else if (inFlight === 0) {
        const waiting = idle;
        idle = [];
        for (const done of waiting) done();
      }
    }
  };

  return {
    add(item) {
      return new Promise<O>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        schedule();
      });
    },
    pending: () => queue.length + running,
    drain() {
      if (queue.length === 0 && inFlight === 0) return Promise.resolve();
      return new Promise<void>((resolve) => idle.push(resolve));
    },
  };
}
