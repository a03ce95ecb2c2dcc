// Numbered plain .sql migrations (NNN_name.sql), applied in order at start, each in its own
// transaction and recorded in schema_migrations with a checksum. A migration that has
// landed is never edited: a changed checksum stops the start.
//
// Several processes may start at once on PostgreSQL: each migration's transaction first
// takes a transaction-scoped advisory lock, then looks at schema_migrations, so exactly one
// process applies it and the others see it done.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { holdTransactionLock } from './db/advisory-lock.js';
import type { Db } from './db/db.js';

/** Advisory lock key taken while migrating (any constant unique to this use). */
export const MIGRATION_LOCK_KEY = 7_364_821_001;

const MIGRATION_FILE = /^(\d{3})_[a-z0-9_]+\.sql$/;

export interface Migration {
  /** File name without `.sql`, e.g. `001_init`. */
  readonly version: string;
  readonly sql: string;
  readonly checksum: string;
}

/**
 * The folder of the .sql files, for a module in `moduleDir`: beside it when running from
 * src/ (tsx); when running compiled from dist/ (tsc does not copy .sql files), found as
 * src/store/migrations under the package root, the nearest folder above holding package.json.
 */
export function migrationsDirFrom(moduleDir: string): string {
  const beside = join(moduleDir, 'migrations');
  if (existsSync(beside)) return beside;
  for (let dir = moduleDir; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'src', 'store', 'migrations');
    if (dirname(dir) === dir)
      throw new Error(`no package.json above ${moduleDir} to find the migrations from`);
  }
}

/** The service's own migrations folder. */
export function migrationsDir(): string {
  return migrationsDirFrom(dirname(fileURLToPath(import.meta.url)));
}

/** Reads the migrations of `dir` in order, refusing misnamed files and duplicate numbers. */
export function loadMigrations(dir: string = migrationsDir()): Migration[] {
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.sql'))
    .sort();
  const seen = new Set<string>();
  return files.map((name) => {
    const number = MIGRATION_FILE.exec(name)?.[1];
    if (number === undefined) throw new Error(`migration file ${name} is not named NNN_name.sql`);
    if (seen.has(number)) throw new Error(`two migrations numbered ${number} in ${dir}`);
    seen.add(number);
    const sql = readFileSync(join(dir, name), 'utf8');
    return {
      version: name.slice(0, -'.sql'.length),
      sql,
      checksum: createHash('sha256').update(sql).digest('hex'),
    };
  });
}

export interface MigrateOptions {
  /** Folder of the .sql files (default: the service's own, see migrationsDir). */
  dir?: string;
}

/** Applies the migrations not yet applied, in order; returns the versions it applied. */
export async function migrate(db: Db, opts: MigrateOptions = {}): Promise<{ applied: string[] }> {
  const migrations = loadMigrations(opts.dir);
  const applied: string[] = [];
  for (const migration of migrations) {
    const didApply = await db.transaction(async (tx) => {
      await holdTransactionLock(tx, MIGRATION_LOCK_KEY);
      await tx.query(
        `CREATE TABLE IF NOT EXISTS schema_migrations (
           version    text PRIMARY KEY,
           checksum   text NOT NULL,
           applied_at timestamptz NOT NULL DEFAULT now()
         )`,
      );
      const [done] = await tx.query<{ checksum: string }>(
        'SELECT checksum FROM schema_migrations WHERE version = $1',
        [migration.version],
      );
      if (done !== undefined) {
        if (done.checksum !== migration.checksum) {
          throw new Error(
            `migration ${migration.version} was edited after it was applied (checksum differs): add a new migration instead`,
          );
        }
        return false;
      }
      await tx.query(migration.sql);
      await tx.query('INSERT INTO schema_migrations (version, checksum) VALUES ($1, $2)', [
        migration.version,
        migration.checksum,
      ]);
      return true;
    });
    if (didApply) applied.push(migration.version);
  }
  return { applied };
}
