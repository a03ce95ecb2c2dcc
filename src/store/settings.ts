// Facts of this deployment kept in the `settings` table (JSON values).
import type { Queryable } from './db/db.js';

export async function readSetting<T>(q: Queryable, key: string): Promise<T | null> {
  const rows = await q.query<{ value: T }>('SELECT value FROM settings WHERE key = $1', [key]);
  return rows[0]?.value ?? null;
}

export async function writeSetting(q: Queryable, key: string, value: unknown, now: Date): Promise<void> {
  await q.query(
    `INSERT INTO settings (key, value, updated_at) VALUES ($1, $2, $3)
     ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at`,
    [key, JSON.stringify(value), now],
  );
}
