// Statements run one at a time, in the order asked: for a caller that asks many reads at once
// and must not take many connections for them. A Prometheus scrape collects every gauge at once;
// on the shared pool its ten reads took every connection the write path needed, and transfers
// waited the scrape's length (docs/operations.md, Metrics).
import type { Queryable, Row, SqlValue } from './db.js';

/** A Queryable over `q` that runs the next statement only once the last one has ended. */
export function oneAtATime(q: Queryable): Queryable {
  let last: Promise<unknown> = Promise.resolve();
  return {
    query<R extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<R[]> {
      const next = last.then(() => q.query<R>(sql, params));
      last = next.catch(() => undefined);
      return next;
    },
  };
}
