// `tokenproxy migrate`: applies the database migrations and exits, for a release step that
// runs before the new version's instances start (they would apply them too, at start).
// `--status` lists each migration as applied, pending or edited and changes nothing; its exit
// code is 0 when the database is up to date, 3 when migrations are pending, 1 when one was
// edited after it was applied.
import { type Config, ConfigError, loadConfig } from '../config.js';
import type { Db } from '../store/db.js';
import { migrate } from '../store/migrate.js';
import { migrationStatus } from '../store/migration-status.js';
import { openPgliteDb } from '../store/pglite-db.js';
import { openPostgresDb } from '../store/postgres-db.js';

export const PENDING_EXIT_CODE = 3;

export async function runMigrate(argv: readonly string[]): Promise<number> {
  const statusOnly = argv.includes('--status');
  let config: Config;
  try {
    config = loadConfig({ argv: argv.filter((a) => a !== '--status'), env: process.env });
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const db: Db = config.databaseUrl
    ? await openPostgresDb(config.databaseUrl, { max: 1 })
    : await openPgliteDb(config.dataDir);
  try {
    if (!statusOnly) {
      const { applied } = await migrate(db);
      process.stdout.write(
        applied.length === 0 ? 'up to date: no migration to apply\n' : `applied: ${applied.join(', ')}\n`,
      );
      return 0;
    }
    const states = await migrationStatus(db);
    for (const s of states)
      process.stdout.write(
        `${s.version}\t${s.state}${s.appliedAt ? `\t${s.appliedAt.toISOString()}` : ''}\n`,
      );
    if (states.some((s) => s.state === 'edited')) return 1;
    return states.some((s) => s.state === 'pending') ? PENDING_EXIT_CODE : 0;
  } finally {
    await db.close();
  }
}
