// The freeze list in the store: the current set (address_freezes), the append-only record of
// every freeze and unfreeze (address_freeze_events), and what frozen addresses hold.
import type { Db, Queryable } from '../db/db.js';

export interface Freeze {
  readonly address: string;
  readonly reason: string;
  readonly frozenBy: string;
  readonly frozenAt: Date;
}

export interface FrozenHolding extends Freeze {
  /** Unspent token outputs the address owns (burn outputs left out), atomic units. */
  readonly balance: bigint;
}

export interface FreezeEvent {
  readonly id: string;
  readonly address: string;
  readonly action: 'freeze' | 'unfreeze';
  readonly reason: string;
  readonly actor: string;
  readonly at: Date;
}

export interface FreezeChange {
  readonly address: string;
  readonly reason: string;
  /** Who: the admin key id. */
  readonly actor: string;
  readonly at: Date;
}

/** Which of `addresses` are frozen: one query on the current set's primary key. */
export async function frozenAmong(q: Queryable, addresses: readonly string[]): Promise<Set<string>> {
  if (addresses.length === 0) return new Set();
  const rows = await q.query<{ address: string }>(
    'SELECT address FROM address_freezes WHERE address = ANY($1::text[])',
    [[...new Set(addresses)]],
  );
  return new Set(rows.map((r) => r.address));
}

/**
 * Freezes an address and records it. Already frozen: nothing changes, nothing is recorded,
 * and the standing freeze is answered with `changed: false`.
 */
export async function freezeAddress(
  db: Db,
  change: FreezeChange,
): Promise<{ freeze: Freeze; changed: boolean }> {
  return db.transaction(async (tx) => {
    // An unfreeze committed between the insert that found the freeze and the read of it leaves
    // nothing to answer: the address is no longer frozen, so it is frozen now.
    for (;;) {
      const inserted = await tx.query<FreezeRow>(
        `INSERT INTO address_freezes (address, reason, frozen_by, frozen_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (address) DO NOTHING
         RETURNING address, reason, frozen_by, frozen_at`,
        [change.address, change.reason, change.actor, change.at],
      );
      if (inserted[0] !== undefined) {
        await recordEvent(tx, 'freeze', change);
        return { freeze: freezeOf(inserted[0]), changed: true };
      }
      const [standing] = await tx.query<FreezeRow>(
        'SELECT address, reason, frozen_by, frozen_at FROM address_freezes WHERE address = $1',
        [change.address],
      );
      if (standing !== undefined) return { freeze: freezeOf(standing), changed: false };
    }
  });
}

/** Unfreezes an address and records it; null when it was not frozen (nothing recorded). */
export async function unfreezeAddress(db: Db, change: FreezeChange): Promise<Freeze | null> {
  return db.transaction(async (tx) => {
    const [removed] = await tx.query<FreezeRow>(
      'DELETE FROM address_freezes WHERE address = $1 RETURNING address, reason, frozen_by, frozen_at',
      [change.address],
    );
    if (removed === undefined) return null;
    await recordEvent(tx, 'unfreeze', change);
    return freezeOf(removed);
  });
}

/** The frozen addresses with what each holds, newest freeze first. */
export async function frozenHoldings(q: Queryable): Promise<FrozenHolding[]> {
  const rows = await q.query<FreezeRow & { balance: string }>(
    `SELECT f.address, f.reason, f.frozen_by, f.frozen_at,
            (SELECT coalesce(sum(o.amount), 0)::text FROM token_outputs o
              WHERE o.owner = f.address AND o.spent_by IS NULL AND o.op <> 'burn') AS balance
       FROM address_freezes f
      ORDER BY f.frozen_at DESC, f.address`,
  );
  return rows.map((r) => ({ ...freezeOf(r), balance: BigInt(r.balance) }));
}

/** The record, newest first (of one address when given), at most `limit` events. */
export async function freezeEvents(q: Queryable, limit: number, address?: string): Promise<FreezeEvent[]> {
  const rows = await q.query<{
    id: string;
    address: string;
    action: 'freeze' | 'unfreeze';
    reason: string;
    actor: string;
    at: Date;
  }>(
    `SELECT id::text AS id, address, action, reason, actor, at FROM address_freeze_events
      WHERE ($1::text IS NULL OR address = $1) ORDER BY id DESC LIMIT $2`,
    [address ?? null, limit],
  );
  return rows.map((r) => ({ ...r }));
}

interface FreezeRow extends Record<string, unknown> {
  address: string;
  reason: string;
  frozen_by: string;
  frozen_at: Date;
}

function freezeOf(r: FreezeRow): Freeze {
  return { address: r.address, reason: r.reason, frozenBy: r.frozen_by, frozenAt: r.frozen_at };
}

async function recordEvent(tx: Queryable, action: 'freeze' | 'unfreeze', change: FreezeChange) {
  await tx.query(
    'INSERT INTO address_freeze_events (address, action, reason, actor, at) VALUES ($1, $2, $3, $4, $5)',
    [change.address, action, change.reason, change.actor, change.at],
  );
}
