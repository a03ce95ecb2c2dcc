// The scale-out adapter: PostgreSQL through a pg Pool.
import { createHash } from 'node:crypto';
import pg from 'pg';

import type { Db, Queryable, Row, SqlValue } from './db.js';
import { drawAnswered, drawSent, drawsScores, markerReleased, markerTaken } from './score-draw-timing.js';
import { closableTx, TransactionScope } from './transaction-scope.js';
import { pgParserOverrides, type TextParser } from './wire-types.js';

export interface PostgresDbOptions {
  /** Pool size (default 10). */
  max?: number;
  /**
   * Schema to work in: created when missing and made the only entry of search_path on
   * every connection. Lets several databases share one PostgreSQL database (tests give
   * each file its own). Lower-case letters, digits and underscores.
   */
  schema?: string;
}

/**
 * Named statements outside a transaction are planned on every run, with the values of that run
 * (PostgreSQL's generic plan of a set-based statement guesses an array's length and the rows it
 * matches; kept for a connection's life, one bad guess stays).
 */
const PLAN_EACH_RUN = '-c plan_cache_mode=force_custom_plan';
/**
 * The hot reads' connections plan each statement once, for any values: their statements are
 * lookups by key of a fixed shape, whose planning cost more than their run (0.30 ms to plan a
 * balance read, 0.46 ms to run it, in bench:load; planned once, 0.21 ms in all).
 */
const PLAN_ONCE = '-c plan_cache_mode=force_generic_plan';
/**
 * A write transaction plans each statement once, for any values: its statements find their rows
 * by key from arrays (claims, feed rows, verdicts), and planning them cost about as much as
 * running them at small batches (docs/adr/0014-write-transactions-plan-once.md). Set with
 * BEGIN, in the same round trip; statements outside a transaction (the page of unspent
 * outputs, whose plan follows its values) stay planned on every run.
 */
const BEGIN_PLANNED_ONCE = 'BEGIN; SET LOCAL plan_cache_mode = force_generic_plan';
/** Connections for the hot reads, besides the pool's `max`. */
const READ_CONNECTIONS = 4;

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

const overrides = pgParserOverrides((oid) => pg.types.getTypeParser(oid, 'text') as TextParser);

/** Per-pool type parsers (pg's global table is left alone). */
const types = {
  getTypeParser(oid: number, format?: string): unknown {
    if (format !== 'binary') {
      const parser = overrides[oid];
      if (parser !== undefined) return parser;
    }
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

type Client = Pick<pg.PoolClient, 'query'>;

/** Distinct statement texts given a name of their own; texts past it run unnamed. */
const NAMED_STATEMENTS_MAX = 1000;
const statementNames = new Map<string, string>();

/**
 * The name a statement text is prepared under on every connection, so PostgreSQL parses and
 * analyses it once per connection instead of on every run (the write path's set-based
 * statements are long: parsing them was a measurable share of the database's CPU).
 */
function statementName(sql: string): string | undefined {
  let name = statementNames.get(sql);
  if (name === undefined && statementNames.size < NAMED_STATEMENTS_MAX) {
    name = `tp_${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`;
    statementNames.set(sql, name);
  }
  return name;
}

/**
 * A query with parameters runs as one prepared statement, named (parsed once per connection);
 * one without parameters runs through the simple protocol and may hold several statements,
 * whose last result's rows are returned (as the PGlite adapter does).
 */
async function run<R extends Row>(client: Client, sql: string, params?: readonly SqlValue[]): Promise<R[]> {
  const result = (
    params === undefined
      ? await client.query(sql)
      : await client.query({ name: statementName(sql), text: sql, values: params as unknown[] })
  ) as pg.QueryResult | pg.QueryResult[];
  const last = Array.isArray(result) ? result.at(-1) : result;
  return (last?.rows ?? []) as R[];
}

async function createSchema(pool: pg.Pool, schema: string): Promise<void> {
  try {
    await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  } catch (err) {
    // Two processes creating it at once: one of them sees a duplicate; the schema exists.
    const code = (err as { code?: string }).code;
    if (code !== '23505' && code !== '42P06') throw err;
  }
}

/** Opens a pool on `url` (postgres://...) and checks that it connects. */
export async function openPostgresDb(url: string, opts: PostgresDbOptions = {}): Promise<Db> {
  const { schema } = opts;
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) throw new Error(`invalid schema name: ${schema}`);
  const poolOf = (planning: string, max: number) =>
    new pg.Pool({
      connectionString: url,
      max,
      types,
      options: [planning, ...(schema === undefined ? [] : [`-c search_path=${schema}`])].join(' '),
    });
  const pool = poolOf(PLAN_EACH_RUN, opts.max ?? 10);
  const readPool = poolOf(PLAN_ONCE, READ_CONNECTIONS);
  // A connection dropped while idle: the pool discards it and the next query opens a new
  // one. Without a listener the 'error' event would crash the process.
  pool.on('error', () => {});
  readPool.on('error', () => {});
  try {
    if (schema !== undefined) await createSchema(pool, schema);
    else await pool.query('SELECT 1');
  } catch (err) {
    await Promise.all([pool.end(), readPool.end()]);
    throw err;
  }

  const scope = new TransactionScope();
  let closed = false;

  return {
    dialect: 'postgres',
    query<R extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<R[]> {
      scope.assertOutside('query');
      return run<R>(pool, sql, params);
    },
    reads: {
      query<R extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<R[]> {
        scope.assertOutside('query');
        return run<R>(readPool, sql, params);
      },
    },
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      scope.assertOutside('transaction');
      const client = await pool.connect();
      let broken: Error | undefined;
      // A checked-out client whose connection is cut between two queries (the server restarted)
      // emits 'error' on itself, not on the pool: unheard, it would crash the process. The
      // next query fails anyway, and the client is then released as broken.
      const onLost = (err: Error) => {
        broken ??= err;
      };
      client.on('error', onLost);
      // Whether this transaction drew scores, so holds its marker to its end (score-draw-timing.ts).
      let marked = false;
      const { tx, close } = closableTx(async (sql, params) => {
        if (!drawsScores(sql)) return run(client, sql, params);
        if (!marked) markerTaken();
        marked = true;
        drawSent();
        let rows = 0;
        try {
          const answer = await run(client, sql, params);
          rows = answer.length;
          return answer;
        } finally {
          drawAnswered(rows);
        }
      });
      try {
        await client.query(BEGIN_PLANNED_ONCE);
        const result = await scope.run(() => fn(tx));
        await client.query('COMMIT');
        return result;
      } catch (err) {
        try {
          await client.query('ROLLBACK');
        } catch (rollbackErr) {
          // The connection is unusable: destroy it rather than return it to the pool.
          broken = rollbackErr as Error;
        }
        throw err;
      } finally {
        if (marked) markerReleased();
        close();
        client.removeListener('error', onLost);
        client.release(broken);
      }
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await Promise.all([pool.end(), readPool.end()]);
    },
  };
}
