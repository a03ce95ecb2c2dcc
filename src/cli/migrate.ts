// `tokenproxy migrate`: applies the database migrations and exits, for a release step that
// runs before the new version's instances start (they would apply them too, at start).
// `--status` lists each migration as applied, pending or edited and changes nothing; its exit
// code is 0 when the database is up to date, 3 when migrations are pending, 1 when one was
// edited after it was applied.
import { type Config, ConfigError, loadConfig } from '../config.js';
import type { Db } from '../store/db/db.js';
import { openPgliteDb } from '../store/db/pglite-db.js';
import { openPostgresDb } from '../store/db/postgres-db.js';
import { migrate } from '../store/migrate.js';
import { migrationStatus } from '../store/migration-status.js';
import { migrateUsage } from './help.js';

export const PENDING_EXIT_CODE = 3;

const OWN_FLAGS = new Set(['--status', '--json']);

/**
 * The settings flags of `migrate` as the config loader reads them. Migrating runs no role:
 * `--roles api` first (a --roles given later still wins) keeps the default roles' devnet from
 * failing production's checks (`production cannot run the 'devnet' role`), which refused
 * `tokenproxy migrate` with the deploy/ settings.
 */
export function configArgvOf(argv: readonly string[]): string[] {
  return ['--roles', 'api', ...argv.filter((a) => !OWN_FLAGS.has(a))];
}

export async function runMigrate(argv: readonly string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(migrateUsage());
    return 0;
  }
  const statusOnly = argv.includes('--status');
  const json = argv.includes('--json');
  let config: Config;
  try {
    config = loadConfig({ argv: configArgvOf(argv), env: process.env, databaseOnly: true });
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
        json
          ? `${JSON.stringify({ applied })}\n`
          : applied.length === 0
            ? 'up to date: no migration to apply\n'
            : `applied: ${applied.join(', ')}\n`,
      );
      return 0;
    }
    const states = await migrationStatus(db);
    if (json)
      process.stdout.write(
        `${JSON.stringify({
          migrations: states.map((s) => ({
            version: s.version,
            state: s.state,
            appliedAt: s.appliedAt?.toISOString() ?? null,
          })),
        })}\n`,
      );
    else
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
