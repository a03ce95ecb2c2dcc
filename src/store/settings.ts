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

export async function deleteSetting(q: Queryable, key: string): Promise<void> {
  await q.query('DELETE FROM settings WHERE key = $1', [key]);
}

/** Writes `key` unless it is there already; answers the value kept (the one written first). */
export async function writeSettingOnce<T>(q: Queryable, key: string, value: T, now: Date): Promise<T> {
  await q.query(
    `INSERT INTO settings (key, value, updated_at) VALUES ($1, $2, $3)
     ON CONFLICT (key) DO NOTHING`,
    [key, JSON.stringify(value), now],
  );
  return (await readSetting<T>(q, key)) ?? value;
}

/**
 * One secret sealed under the master key that is still in use, if any (a live API key's webhook
 * secret): a revoked key's secret is never opened again, so rotating the key may leave it behind.
 */
export async function anySealedSecret(q: Queryable): Promise<Uint8Array | null> {
  const rows = await q.query<{ sealed: Uint8Array }>(
    'SELECT webhook_secret_enc AS sealed FROM api_keys WHERE revoked_at IS NULL ORDER BY created_at LIMIT 1',
  );
  return rows[0]?.sealed ?? null;
}
