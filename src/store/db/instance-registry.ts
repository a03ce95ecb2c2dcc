// Which process runs under each instance name (src/process/instance-identity.ts): one row of
// `settings` per name, `instance:<name>`, saying the host and pid of the run that holds it and
// until when, under a lease the run renews. Each run has a random id of its own: a row is taken
// over only as read (the run id compared in the statement), renewed and given up only by its run.
import type { InstanceEntry, InstanceRegistry } from '../../process/instance-identity.js';
import type { Db, Queryable } from './db.js';

/**
 * The registry of instance names for `db`; null on PGlite, whose data folder one process alone
 * opens (so no second process can share a name).
 */
export function instanceRegistryOf(db: Db): InstanceRegistry | null {
  if (db.dialect === 'pglite') return null;
  return {
    read: (name) => readInstanceEntry(db, name),
    take: (name, entry, now, replacing) => takeInstanceEntry(db, name, entry, now, replacing),
    renew: (name, run, now, until) => renewInstanceEntry(db, name, run, now, until),
    release: (name, run) => releaseInstanceEntry(db, name, run),
  };
}

const keyOf = (name: string) => `instance:${name}`;

/** The row of `name`, live or not; null when none. */
export async function readInstanceEntry(q: Queryable, name: string): Promise<InstanceEntry | null> {
  const rows = await q.query<{ value: InstanceEntry }>('SELECT value FROM settings WHERE key = $1', [
    keyOf(name),
  ]);
  return rows[0]?.value ?? null;
}

/**
 * Writes `entry` as the row of `name`: where there is none (`replacing` null), or where the row
 * is still the one read (its run is `replacing`). False: another run wrote it meanwhile.
 */
export async function takeInstanceEntry(
  q: Queryable,
  name: string,
  entry: InstanceEntry,
  now: Date,
  replacing: string | null,
): Promise<boolean> {
  const rows =
    replacing === null
      ? await q.query(
          `INSERT INTO settings (key, value, updated_at) VALUES ($1, $2, $3)
           ON CONFLICT (key) DO NOTHING RETURNING key`,
          [keyOf(name), JSON.stringify(entry), now],
        )
      : await q.query(
          `UPDATE settings SET value = $2, updated_at = $3
            WHERE key = $1 AND value->>'run' = $4 RETURNING key`,
          [keyOf(name), JSON.stringify(entry), now, replacing],
        );
  return rows.length === 1;
}

/** Extends the run's lease; false when the row is no longer its (another run took it over). */
export async function renewInstanceEntry(
  q: Queryable,
  name: string,
  run: string,
  now: Date,
  until: Date,
): Promise<boolean> {
  const rows = await q.query(
    `UPDATE settings SET value = jsonb_set(value, '{until}', to_jsonb($4::text)), updated_at = $3
      WHERE key = $1 AND value->>'run' = $2 RETURNING key`,
    [keyOf(name), run, now, until.toISOString()],
  );
  return rows.length === 1;
}

/** Gives the name up (an orderly stop): only the run's own row. */
export async function releaseInstanceEntry(q: Queryable, name: string, run: string): Promise<void> {
  await q.query(`DELETE FROM settings WHERE key = $1 AND value->>'run' = $2`, [keyOf(name), run]);
}
