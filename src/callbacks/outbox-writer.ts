// Group commit of the deliverer's writes (attempts, unsent settlements, releases): what is
// written within one turn of the event loop, and everything that comes in while a statement
// is running, goes together in the next statement, at most `maxBatch` per statement. Each
// caller's promise resolves once its own write committed; the deliverer does not wait for it
// before sending the next event (the outbox keeps the event leased until then, so the
// ticket's next event cannot be leased before this one is written).

import { type OutboxWrite, writeOutbox } from '../store/callbacks/callback-outbox.js';
import type { Queryable } from '../store/db/db.js';

export interface OutboxWriter {
  write(write: OutboxWrite): Promise<void>;
  /** Writes not yet committed. */
  readonly pending: number;
  /** Resolves when every write handed in so far has been tried. */
  idle(): Promise<void>;
}

export interface OutboxWriterOptions {
  /** Most writes per statement (default 512). */
  readonly maxBatch?: number;
  /**
   * How long the first write of a statement waits for others (default 0: one turn of the
   * event loop). Worth a few ms where each statement holds up the whole process (PGlite).
   */
  readonly gatherMs?: number;
  /** Told after each statement, committed or not. */
  readonly onFlushed?: () => void;
}

export function outboxWriter(db: Queryable, options: OutboxWriterOptions = {}): OutboxWriter {
  const maxBatch = options.maxBatch ?? 512;
  const gatherMs = options.gatherMs ?? 0;
  const onFlushed = options.onFlushed ?? (() => {});
  let queue: { write: OutboxWrite; resolve: () => void; reject: (err: unknown) => void }[] = [];
  let writing = false;
  let running: Promise<void> = Promise.resolve();
  let pending = 0;

  async function writeAll(): Promise<void> {
    writing = true;
    try {
      await writeQueued();
    } finally {
      writing = false;
    }
  }

  async function writeQueued(): Promise<void> {
    while (queue.length > 0) {
      // One turn of the event loop (or gatherMs) first: answers that already arrived join.
      if (gatherMs > 0 && queue.length < maxBatch)
        await new Promise((resolve) => setTimeout(resolve, gatherMs));
      else await new Promise((resolve) => setImmediate(resolve));
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(batch.length);
      try {
        await writeOutbox(
          db,
          batch.map((b) => b.write),
        );
        for (const b of batch) b.resolve();
      } catch (err) {
        for (const b of batch) b.reject(err);
      } finally {
        pending -= batch.length;
        onFlushed();
      }
    }
  }

  return {
    write(write) {
      return new Promise<void>((resolve, reject) => {
        queue.push({ write, resolve, reject });
        pending++;
        if (!writing) running = writeAll();
      });
    },
    get pending() {
      return pending;
    },
    async idle() {
      while (writing) await running;
    },
  };
}
