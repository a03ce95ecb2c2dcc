// Which of the service's migrations a database has: applied (with when), pending, or edited
// after it was applied (its checksum differs: the start refuses such a database). Reads only.
import type { Db } from './db/db.js';
import { loadMigrations } from './migrate.js';

export interface MigrationState {
  readonly version: string;
  readonly state: 'applied' | 'pending' | 'edited';
  readonly appliedAt: Date | null;
}

export async function migrationStatus(db: Db, dir?: string): Promise<MigrationState[]> {
  const migrations = loadMigrations(dir);
  const [table] = await db.query<{ name: string | null }>(
    "SELECT to_regclass('schema_migrations')::text AS name",
  );
  const rows =
    table?.name === null || table === undefined
      ? []
      : await db.query<{ version: string; checksum: string; applied_at: Date }>(
          'SELECT version, checksum, applied_at FROM schema_migrations',
        );
  const done = new Map(rows.map((r) => [r.version, r]));
  return migrations.map((m) => {
    const row = done.get(m.version);
    if (row === undefined) return { version: m.version, state: 'pending', appliedAt: null };
    return {
      version: m.version,
      state: row.checksum === m.checksum ? 'applied' : 'edited',
      appliedAt: new Date(row.applied_at),
    };
  });
}
