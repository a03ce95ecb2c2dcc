// Where api processes find the deployment's writer (docs/adr/0007-one-writer-per-deployment.md):
// one row of `settings`, the writer's address, its instance id and the hash of the token its
// callers present (the token itself is derived from the approver key, src/writer/writer-token.ts,
// and never stored), held under a lease the writer renews. A second writer is refused while the lease is live; once it lapses
// (the writer was killed), the next writer to start takes the row over.
import type { Queryable } from '../db/db.js';

const KEY = 'writer';

export interface WriterEntry {
  /** Base URL of the writer's internal HTTP server. */
  readonly url: string;
  /** SHA-256 (hex) of the bearer token its callers present; the token is derived, not stored. */
  readonly tokenHash: string;
  /** Which writer process holds the row (a random id per start). */
  readonly instance: string;
}

/**
 * Registers `entry` until `until`, or renews it: taken only where no row is, the row is this
 * instance's, or its lease has lapsed. False: another writer holds a live lease.
 */
export async function holdWriterEntry(
  q: Queryable,
  entry: WriterEntry,
  now: Date,
  until: Date,
): Promise<boolean> {
  const rows = await q.query<{ key: string }>(
    `INSERT INTO settings (key, value, updated_at) VALUES ($1, $2, $3)
     ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at
      WHERE settings.value->>'instance' = EXCLUDED.value->>'instance'
         OR (settings.value->>'until')::timestamptz < EXCLUDED.updated_at
     RETURNING key`,
    [KEY, JSON.stringify({ ...entry, until: until.toISOString() }), now],
  );
  return rows.length === 1;
}

/** The registered writer whose lease is live at `now`, if any. */
export async function liveWriter(
  q: Queryable,
  now: Date,
): Promise<(WriterEntry & { readonly until: Date }) | null> {
  const rows = await q.query<{ value: WriterEntry & { until: string } }>(
    `SELECT value FROM settings WHERE key = $1 AND (value->>'until')::timestamptz > $2`,
    [KEY, now],
  );
  const value = rows[0]?.value;
  return value === undefined ? null : { ...value, until: new Date(value.until) };
}

/** Gives the row up (an orderly stop): only this instance's. */
export async function releaseWriterEntry(q: Queryable, instance: string): Promise<void> {
  await q.query(`DELETE FROM settings WHERE key = $1 AND value->>'instance' = $2`, [KEY, instance]);
}
