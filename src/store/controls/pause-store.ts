// The pause (issuer_pause, one row): whether transfers are cosigned. Every submission batch
// reads it in its look-ups statement (store/submissions/submission-lookups.ts); a change and its
// record in control_events are one transaction.
import type { Db, Queryable } from '../db/db.js';
import { recordControlEvent } from './control-events.js';

export interface PauseState {
  readonly paused: boolean;
  readonly reason: string;
  readonly changedBy: string;
  readonly changedAt: Date;
}

export async function pauseState(q: Queryable): Promise<PauseState> {
  const [row] = await q.query<{ paused: boolean; reason: string; changed_by: string; changed_at: Date }>(
    'SELECT paused, reason, changed_by, changed_at FROM issuer_pause',
  );
  if (row === undefined) throw new Error('issuer_pause has no row (migration 021)');
  return { paused: row.paused, reason: row.reason, changedBy: row.changed_by, changedAt: row.changed_at };
}

/**
 * Pauses or unpauses; recorded only when the state changes (`changed: false`: it was so
 * already, and the standing state is answered).
 */
export async function setPaused(
  db: Db,
  change: { readonly paused: boolean; readonly reason: string; readonly actor: string; readonly at: Date },
): Promise<{ state: PauseState; changed: boolean }> {
  return db.transaction(async (tx) => {
    const updated = await tx.query(
      `UPDATE issuer_pause SET paused = $1, reason = $2, changed_by = $3, changed_at = $4
        WHERE paused <> $1 RETURNING paused`,
      [change.paused, change.reason, change.actor, change.at],
    );
    if (updated.length === 0) return { state: await pauseState(tx), changed: false };
    await recordControlEvent(tx, {
      action: change.paused ? 'pause' : 'unpause',
      subject: '',
      reason: change.reason,
      actor: change.actor,
      at: change.at,
    });
    return {
      state: { paused: change.paused, reason: change.reason, changedBy: change.actor, changedAt: change.at },
      changed: true,
    };
  });
}
