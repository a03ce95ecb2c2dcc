// Per-key mint allowances (migration 037; USDC's minter allowance): a key with a row mints at
// most `remaining` more; a key without one mints without a cap (so a deployment that never sets
// one keeps working). Each mint spends its amount under its txid (mint_allowance_spends) in one
// transaction with the decrement, so a retried mint that submits the same transaction spends
// once; a mint that was never committed gives its amount back (refundAllowance).
import { raisesAllowance } from '../../domain/approval-policy.js';
import type { Db, Queryable } from '../db/db.js';
import { recordProposalEvent } from './proposal-store.js';

export interface Allowance {
  readonly keyId: string;
  readonly remaining: bigint;
  readonly setBy: string;
  readonly setAt: Date;
}

interface Row {
  key_id: string;
  remaining: string;
  set_by: string;
  set_at: Date;
  [column: string]: unknown;
}

const allowanceOfRow = (r: Row): Allowance => ({
  keyId: r.key_id,
  remaining: BigInt(r.remaining),
  setBy: r.set_by,
  setAt: r.set_at,
});

/** The key's allowance; null: none set (no cap). */
export async function allowanceOf(q: Queryable, keyId: string, lock = false): Promise<Allowance | null> {
  const [row] = await q.query<Row>(
    `SELECT key_id, remaining::text AS remaining, set_by, set_at FROM mint_allowances WHERE key_id = $1${lock ? ' FOR UPDATE' : ''}`,
    [keyId],
  );
  return row === undefined ? null : allowanceOfRow(row);
}

export async function listAllowances(q: Queryable): Promise<Allowance[]> {
  const rows = await q.query<Row>(
    'SELECT key_id, remaining::text AS remaining, set_by, set_at FROM mint_allowances ORDER BY key_id',
  );
  return rows.map(allowanceOfRow);
}

/**
 * Holds the setting of one key's allowance until `tx` ends: with no row yet there is nothing to
 * lock, and two settings at once would each judge against the other's absence. Two integers
 * name the lock, a space apart from the service's one-number advisory locks.
 */
export async function holdAllowanceSetting(tx: Queryable, keyId: string): Promise<void> {
  await tx.query("SELECT pg_advisory_xact_lock(hashtext('mint_allowances'), hashtext($1))", [keyId]);
}

export interface AllowanceSetting {
  readonly keyId: string;
  readonly remaining: bigint | null;
  readonly reason: string;
  readonly actor: string;
  readonly at: Date;
}

export interface AllowanceChange {
  readonly before: bigint | null;
  readonly after: bigint | null;
}

/**
 * Sets a key's allowance (null: removes the cap), recorded in control_events with who, why and
 * the change. Runs in the caller's transaction (an approved proposal's finish). With
 * `unlessRaise`, writes nothing and answers null when the value would raise the allowance as it
 * stands under the lock (a mint spending meanwhile can turn a lowering into a raise).
 */
export async function setAllowance(tx: Queryable, s: AllowanceSetting): Promise<AllowanceChange>;
export async function setAllowance(
  tx: Queryable,
  s: AllowanceSetting & { readonly unlessRaise?: boolean },
): Promise<AllowanceChange | null>;
export async function setAllowance(
  tx: Queryable,
  s: AllowanceSetting & { readonly unlessRaise?: boolean },
): Promise<AllowanceChange | null> {
  await holdAllowanceSetting(tx, s.keyId);
  const before = (await allowanceOf(tx, s.keyId, true))?.remaining ?? null;
  if (s.unlessRaise === true && raisesAllowance(before, s.remaining)) return null;
  if (s.remaining === null) await tx.query('DELETE FROM mint_allowances WHERE key_id = $1', [s.keyId]);
  else
    await tx.query(
      `INSERT INTO mint_allowances (key_id, remaining, set_by, set_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (key_id) DO UPDATE SET remaining = $2, set_by = $3, set_at = $4`,
      [s.keyId, s.remaining.toString(), s.actor, s.at],
    );
  await recordProposalEvent(tx, {
    action: 'allowance-set',
    subject: s.keyId,
    reason: s.reason,
    actor: s.actor,
    at: s.at,
    detail: { before: before?.toString() ?? null, after: s.remaining?.toString() ?? null },
  });
  return { before, after: s.remaining };
}

export type Spend =
  | { readonly kind: 'spent'; readonly remaining: bigint | null }
  | { readonly kind: 'spent-before' }
  | { readonly kind: 'exceeded'; readonly remaining: bigint };

/**
 * Spends `amount` of the key's allowance for the mint `txid`, once per txid: 'spent-before' when
 * this transaction spent already, 'exceeded' (nothing changed) when the allowance is smaller.
 */
export async function spendAllowance(
  db: Db,
  s: { readonly txid: string; readonly keyId: string; readonly amount: bigint; readonly at: Date },
): Promise<Spend> {
  return db.transaction(async (tx): Promise<Spend> => {
    const allowance = await allowanceOf(tx, s.keyId, true);
    const before = await tx.query('SELECT 1 FROM mint_allowance_spends WHERE txid = $1', [s.txid]);
    if (before.length > 0) return { kind: 'spent-before' };
    if (allowance !== null && allowance.remaining < s.amount)
      return { kind: 'exceeded', remaining: allowance.remaining };
    const inserted = await tx.query(
      `INSERT INTO mint_allowance_spends (txid, key_id, amount, at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (txid) DO NOTHING RETURNING txid`,
      [s.txid, s.keyId, s.amount.toString(), s.at],
    );
    if (inserted.length === 0) return { kind: 'spent-before' };
    if (allowance === null) return { kind: 'spent', remaining: null };
    const remaining = allowance.remaining - s.amount;
    await charge(tx, s, remaining, `mint ${s.txid}`);
    return { kind: 'spent', remaining };
  });
}

/**
 * Gives back what the mint `txid` spent, unless an attempt marked its mint committed
 * (markSpendCommitted); false when nothing was given back. An allowance set after the spend is
 * left as it was set: the setting decided what the key may mint from then on.
 */
export async function refundAllowance(db: Db, txid: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [gone] = await tx.query<{ key_id: string; amount: string; at: Date }>(
      'DELETE FROM mint_allowance_spends WHERE txid = $1 AND NOT committed RETURNING key_id, amount::text AS amount, at',
      [txid],
    );
    if (gone === undefined) return false;
    await tx.query(
      'UPDATE mint_allowances SET remaining = remaining + $2::numeric WHERE key_id = $1 AND set_at <= $3',
      [gone.key_id, gone.amount, gone.at],
    );
    return true;
  });
}

/**
 * Marks the spend of the mint `txid` committed: no refund takes it back from now on. Where an
 * attempt that failed gave it back meanwhile (the mark waits for that refund's row lock, then
 * finds no row), it is charged again, to zero at most: the mint stands. Answers whether it was
 * charged again.
 */
export async function markSpendCommitted(
  db: Db,
  s: { readonly txid: string; readonly keyId: string; readonly amount: bigint; readonly at: Date },
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const marked = await tx.query(
      'UPDATE mint_allowance_spends SET committed = true WHERE txid = $1 RETURNING 1',
      [s.txid],
    );
    if (marked.length > 0) return false;
    const allowance = await allowanceOf(tx, s.keyId, true);
    await tx.query(
      `INSERT INTO mint_allowance_spends (txid, key_id, amount, at, committed) VALUES ($1, $2, $3, $4, true)
       ON CONFLICT (txid) DO UPDATE SET committed = true`,
      [s.txid, s.keyId, s.amount.toString(), s.at],
    );
    if (allowance === null) return true;
    const remaining = allowance.remaining > s.amount ? allowance.remaining - s.amount : 0n;
    await charge(
      tx,
      s,
      remaining,
      `mint ${s.txid}, charged again: an attempt that failed gave it back after it committed`,
    );
    return true;
  });
}

/** Leaves the key's allowance at `remaining`, recorded as the spend of the mint `s.txid`. */
async function charge(
  tx: Queryable,
  s: { readonly txid: string; readonly keyId: string; readonly amount: bigint; readonly at: Date },
  remaining: bigint,
  reason: string,
): Promise<void> {
  await tx.query('UPDATE mint_allowances SET remaining = $2 WHERE key_id = $1', [
    s.keyId,
    remaining.toString(),
  ]);
  await recordProposalEvent(tx, {
    action: 'allowance-spend',
    subject: s.keyId,
    reason,
    actor: s.keyId,
    at: s.at,
    detail: { txid: s.txid, amount: s.amount.toString(), remaining: remaining.toString() },
  });
}
