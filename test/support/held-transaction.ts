// A transaction held open after its work: what a test needs to put a writer in flight (drawn,
// not committed) while other transactions and readers run, then end it.
import type { Db, Queryable } from '../../src/store/db/db.js';
import { eventually } from '../e2e/support.js';

export interface HeldTransaction<T> {
  /** The work's result, once it ran (the transaction still open); rejects if the work threw. */
  readonly ready: Promise<T>;
  /** Lets the transaction commit. */
  commit(): void;
  /** Rolls the transaction back. */
  rollback(): void;
  /** The transaction's end, committed or rolled back. */
  readonly ended: Promise<void>;
}

/** Thrown inside the held transaction to roll it back; never seen outside. */
class RolledBack extends Error {}

export function holdOpen<T>(db: Db, work: (tx: Queryable) => Promise<T>): HeldTransaction<T> {
  let end!: (commit: boolean) => void;
  const ending = new Promise<boolean>((resolve) => {
    end = resolve;
  });
  let resolveReady!: (value: T) => void;
  let rejectReady!: (err: unknown) => void;
  const ready = new Promise<T>((resolve, reject) => {
    resolveReady = resolve;
    rejectReady = reject;
  });
  const ended = db
    .transaction(async (tx) => {
      try {
        resolveReady(await work(tx));
      } catch (err) {
        rejectReady(err);
        throw err;
      }
      if (!(await ending)) throw new RolledBack();
    })
    .catch((err: unknown) => {
      if (!(err instanceof RolledBack)) throw err;
    });
  return { ready, commit: () => end(true), rollback: () => end(false), ended };
}

/** `db` whose transactions run inside `tx`: a helper that opens its own transaction writes in the held one. */
export function inside(db: Db, tx: Queryable): Db {
  return { ...db, transaction: <R>(fn: (q: Queryable) => Promise<R>) => fn(tx) };
}

/** Whether another backend waits for a lock that PostgreSQL backend `holder` holds. */
export async function someoneWaitsFor(db: Queryable, holder: number): Promise<boolean> {
  const [row] = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM pg_stat_activity a WHERE $1::int = ANY(pg_blocking_pids(a.pid))',
    [holder],
  );
  return row!.n > 0;
}

/** The PostgreSQL backend that runs `tx`: what someoneWaitsFor is asked about. */
export async function backendPid(tx: Queryable): Promise<number> {
  const [row] = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  return row!.pid;
}

/**
 * Runs `run` while `held` (whose work answers its backend, backendPid) holds what `run` needs:
 * lets `held` commit once `run` waits for it, and answers what `run` answers. Fails (after
 * rolling `held` back) when `run` is not seen waiting.
 */
export async function runWhileHeld<R>(
  db: Db,
  held: HeldTransaction<number>,
  run: () => Promise<R>,
  what: string,
): Promise<R> {
  const holder = await held.ready;
  const running = run();
  // `run` may settle while this waits for `held` to end; its rejection is answered below, so
  // mark it handled now (else Node reports an unhandled rejection and fails the test).
  running.catch(() => undefined);
  try {
    await eventually(async () => ((await someoneWaitsFor(db, holder)) ? true : undefined), what);
  } catch (err) {
    // `run` never waited (the code under test took no lock the held transaction has): end the
    // held transaction, so that the failure is reported instead of the test hanging on it.
    held.rollback();
    await held.ended;
    await running.catch(() => undefined);
    throw err;
  }
  held.commit();
  await held.ended;
  return running;
}
