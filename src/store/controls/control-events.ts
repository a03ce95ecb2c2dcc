// The issuer's control record (control_events, migration 021): every pause, unpause,
// blacklisting, seizure and screening denial, with the admin key (or 'screening') that made it
// and why. Append-only: a trigger refuses UPDATE and DELETE.
import type { Queryable } from '../db/db.js';

export type ControlAction =
  | 'pause'
  | 'unpause'
  | 'blacklist'
  | 'unblacklist'
  | 'seize'
  | 'screening-deny'
  | 'screening-timeout';

export interface ControlEvent {
  readonly id: string;
  readonly action: ControlAction;
  /** An address, a seizure's reference, a txid (screening), '' for the pause. */
  readonly subject: string;
  readonly reason: string;
  readonly actor: string;
  readonly at: Date;
  readonly detail: Readonly<Record<string, unknown>>;
}

export type NewControlEvent = Omit<ControlEvent, 'id' | 'detail'> & {
  readonly detail?: Readonly<Record<string, unknown>>;
};

export async function recordControlEvent(q: Queryable, e: NewControlEvent): Promise<void> {
  await q.query(
    'INSERT INTO control_events (action, subject, reason, actor, at, detail) VALUES ($1, $2, $3, $4, $5, $6::jsonb)',
    [e.action, e.subject, e.reason, e.actor, e.at, JSON.stringify(e.detail ?? {})],
  );
}

/** The record, newest first, at most `limit` events (of one action when given). */
export async function controlEvents(
  q: Queryable,
  limit: number,
  action?: ControlAction,
): Promise<ControlEvent[]> {
  const rows = await q.query<{
    id: string;
    action: ControlAction;
    subject: string;
    reason: string;
    actor: string;
    at: Date;
    detail: unknown;
  }>(
    `SELECT id::text AS id, action, subject, reason, actor, at, detail FROM control_events
      WHERE ($1::text IS NULL OR action = $1) ORDER BY control_events.id DESC LIMIT $2`,
    [action ?? null, limit],
  );
  return rows.map((r) => ({
    ...r,
    detail: (typeof r.detail === 'string' ? JSON.parse(r.detail) : r.detail) as Record<string, unknown>,
  }));
}
