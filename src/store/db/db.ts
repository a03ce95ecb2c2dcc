// The storage port: raw SQL (one dialect, PostgreSQL) behind a small interface.
// Adapters: PGlite (embedded) and pg (PostgreSQL). Both return rows the same way:
// NUMERIC and INT8 as decimal strings, BYTEA as Uint8Array, TIMESTAMPTZ as Date,
// arrays as JS arrays, JSONB as parsed values.

export type SqlValue =
  | string
  | number
  | bigint
  | boolean
  | null
  | Uint8Array
  | Date
  | readonly (string | null)[]
  | readonly number[];

export type Row = Record<string, unknown>;

export interface Queryable {
  query<R extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<R[]>;
}

export interface Db extends Queryable {
  readonly dialect: 'pglite' | 'postgres';
  /**
   * Only where this process is the database's one writer (PGlite): a number that changes
   * whenever a write begins or ends, and null while one is under way (its changes may be
   * visible already, its count not moved yet), so a cache can tell "nothing changed" without a
   * query: the same number before and after a read. Absent where other processes write too
   * (PostgreSQL).
   */
  readonly localWrites?: () => number | null;
  /**
   * Where the hot reads of a fixed shape run (a ticket, balances, the feed's stamp), outside any
   * transaction: on PostgreSQL connections of their own whose statements keep one generic plan
   * instead of being planned on every run (docs/adr/0005-hot-reads-planned-once.md). Absent:
   * the Db itself.
   */
  readonly reads?: Queryable;
  /** Runs fn in one database transaction; commits when it resolves, rolls back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Where `db`'s hot reads run: its `reads`, or itself. */
export function hotReads(db: Db): Queryable {
  return db.reads ?? db;
}

/**
 * Parameters of a statement that has none, passed to run it as a prepared statement: parsed and
 * planned once per connection, where a query without parameters is parsed and planned on every
 * run (0.15 ms to plan the feed's stamp, longer than running it).
 */
export const NO_PARAMETERS: readonly SqlValue[] = [];
