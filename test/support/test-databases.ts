// Fresh databases for tests, on every adapter available: PGlite in memory always,
// PostgreSQL when TEST_DATABASE_URL is set (a schema of its own per call, dropped after);
// and a whole PostgreSQL database of its own, for services started on a database URL.
// A suite on one fresh database per adapter: describeOnEachDb (describe-on-each-db.ts).
import { randomBytes } from 'node:crypto';
import pg from 'pg';

import type { Db } from '../../src/store/db/db.js';
import { openPgliteDb } from '../../src/store/db/pglite-db.js';
import { openPostgresDb } from '../../src/store/db/postgres-db.js';
import { migrate } from '../../src/store/migrate.js';

export interface FreshDb {
  readonly db: Db;
  /** PostgreSQL only: the schema it lives in, to open more pools on the same database. */
  readonly schema?: string;
  /** Closes it and, on PostgreSQL, drops its schema. */
  dispose(): Promise<void>;
}

export interface TestTarget {
  readonly name: 'pglite' | 'postgres';
  /** A new, empty database; migrated unless told otherwise. */
  fresh(opts?: { migrate?: boolean }): Promise<FreshDb>;
}

export const testDatabaseUrl: string | undefined = process.env.TEST_DATABASE_URL || undefined;

function uniqueSchemaName(): string {
  return `test_${process.pid}_${randomBytes(4).toString('hex')}`;
}

const pgliteTarget: TestTarget = {
  name: 'pglite',
  async fresh(opts = {}) {
    const db = await openPgliteDb('memory');
    if (opts.migrate !== false) await migrate(db);
    return { db, dispose: () => db.close() };
  },
};

function postgresTarget(url: string): TestTarget {
  return {
    name: 'postgres',
    async fresh(opts = {}) {
      const schema = uniqueSchemaName();
      const db = await openPostgresDb(url, { schema, max: 8 });
      if (opts.migrate !== false) await migrate(db);
      return {
        db,
        schema,
        async dispose() {
          try {
            await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
          } finally {
            await db.close();
          }
        },
      };
    },
  };
}

export function testTargets(): TestTarget[] {
  return testDatabaseUrl === undefined ? [pgliteTarget] : [pgliteTarget, postgresTarget(testDatabaseUrl)];
}

/** A database of its own on the test server; `drop` removes it (and its connections). */
export async function freshDatabase(serverUrl: string, label: string) {
  const name = `tokenproxy_${label}_${process.pid}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    async drop() {
      const again = new pg.Client({ connectionString: serverUrl });
      await again.connect();
      await again.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await again.end();
    },
  };
}
