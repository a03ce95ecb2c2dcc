// Group commit of delivery attempts: while one statement writes, the attempts that finish
// queue up and go together in the next one. Each caller resolves once its own attempt is
// written, so what follows it (the ticket's next event) is leased only after that.
import type { Queryable } from '../store/db.js';
import { type RecordedAttempt, recordAttempts } from './outbox-store.js';

export interface AttemptRecorder {
  record(attempt: RecordedAttempt): Promise<void>;
}

/** Writes at most `maxBatch` attempts per statement (default 64). */
export function attemptRecorder(db: Queryable, maxBatch = 64): AttemptRecorder {
  let queue: { attempt: RecordedAttempt; resolve: () => void; reject: (err: unknown) => void }[] = [];
  let writing = false;

  async function writeAll(): Promise<void> {
    writing = true;
    try {
      while (queue.length > 0) {
        // One turn of the event loop first: answers that already arrived join this batch.
        await new Promise((resolve) => setImmediate(resolve));
        const batch = queue.slice(0, maxBatch);
        queue = queue.slice(batch.length);
        try {
          await recordAttempts(
            db,
            batch.map((b) => b.attempt),
          );
          for (const b of batch) b.resolve();
        } catch (err) {
          for (const b of batch) b.reject(err);
        }
      }
    } finally {
      writing = false;
    }
  }

  return {
    record(attempt) {
      return new Promise<void>((resolve, reject) => {
        queue.push({ attempt, resolve, reject });
        if (!writing) void writeAll();
      });
    },
  };
}
