// Where transfers are cosigned: on worker threads, so that the event loop which answers requests
// and talks to the database is not held up by signatures (docs/adr/0010-claims-by-primary-key.md:
// a commit batch waited on the loop three times as long as on the database), or in the calling
// thread (`cosignThreads: 0`). Same pure step either way (domain/cosign-transfer.ts).
//
// A worker that dies fails the jobs it held (each caller gets an error, answered as a 500, and
// nothing was written) and is replaced; the pool never holds the process open.
import { Worker } from 'node:worker_threads';
import type { CosignKeys } from '../domain/complete-transfer.js';
import { type CosignJob, type CosignOutcome, cosignTransfer } from '../domain/cosign-transfer.js';

export interface Cosigner {
  cosign(job: CosignJob): Promise<CosignOutcome>;
  /** Stops the threads; jobs still running fail. */
  close(): Promise<void>;
}

export function cosignerInThread(keys: CosignKeys): Cosigner {
  return {
    cosign: async (job) => cosignTransfer(job, keys),
    close: async () => undefined,
  };
}

interface Pending {
  readonly resolve: (outcome: CosignOutcome) => void;
  readonly reject: (err: Error) => void;
}

interface Thread {
  worker: Worker;
  readonly pending: Map<number, Pending>;
}

type Reply =
  | { readonly id: number; readonly outcome: CosignOutcome }
  | { readonly id: number; readonly error: { readonly name: string; readonly message: string } };

/**
 * The thread's entry: the compiled module; run from the TypeScript sources (tests, benches, `tsx`),
 * a script that loads tsx in the thread first (a worker inherits neither the process's loader
 * hooks nor, under the test runner, its `--import`).
 */
function startWorker(workerData: CosignKeys): Worker {
  if (!import.meta.url.endsWith('.ts'))
    return new Worker(new URL('./cosign-worker.js', import.meta.url), { workerData });
  const entry = JSON.stringify(new URL('./cosign-worker.ts', import.meta.url).href);
  const script = `import('tsx/esm/api').then(({ register }) => { register(); return import(${entry}); })`;
  return new Worker(script, { eval: true, workerData });
}

export function cosignerOnThreads(keys: CosignKeys, threads: number): Cosigner {
  if (!Number.isSafeInteger(threads) || threads < 1) throw new RangeError(`invalid thread count ${threads}`);
  let nextId = 0;
  let closed = false;

  const start = (thread?: Thread): Thread => {
    const worker = startWorker(keys);
    worker.unref();
    const t: Thread = thread ?? { worker, pending: new Map() };
    t.worker = worker;
    worker.on('message', (reply: Reply) => {
      const job = t.pending.get(reply.id);
      if (job === undefined) return;
      t.pending.delete(reply.id);
      if ('outcome' in reply) job.resolve(reply.outcome);
      else job.reject(Object.assign(new Error(reply.error.message), { name: reply.error.name }));
    });
    const lost = (err: Error) => {
      if (t.worker !== worker) return;
      for (const job of t.pending.values()) job.reject(err);
      t.pending.clear();
      if (!closed) start(t);
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`cosigning thread exited (${code})`)));
    return t;
  };
  const pool = Array.from({ length: threads }, () => start());

  return {
    cosign(job) {
      if (closed) return Promise.reject(new Error('the cosigner is closed'));
      // The thread with the fewest jobs in hand.
      const thread = pool.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
      const id = nextId++;
      return new Promise<CosignOutcome>((resolve, reject) => {
        thread.pending.set(id, { resolve, reject });
        thread.worker.postMessage({ id, job });
      });
    },
    async close() {
      closed = true;
      await Promise.all(pool.map((t) => t.worker.terminate()));
    },
  };
}
