// Seizures (migrations 021, 038): an order's outpoints taken out of circulation for good (the
// submission look-ups refuse to cosign them: OUTPUT_SEIZED) and their value reissued to the
// address the order names. The order, its outpoints, its record in control_events and its
// reissue (built and signed, not yet submitted) are written in one transaction: the seizure is
// 'prepared'. Its state turns 'reissued', with the reissue's txid, once the reissue's ticket is
// committed; until then every attempt submits the kept bytes, never a second mint.
import type { Db, Queryable } from '../db/db.js';
import { isUniqueViolation } from '../db/sql-error.js';
import { neverCommittable, neverCommittableParameters } from '../submissions/never-committable.js';
import { recordControlEvent } from './control-events.js';

export interface SeizureOrder {
  readonly id: string;
  /** The order's number or hash (a court order, a regulator's letter): one seizure per reference. */
  readonly reference: string;
  readonly reason: string;
  readonly reissueTo: string;
  readonly actor: string;
  readonly at: Date;
}

export interface SeizedOutput {
  readonly txid: string;
  readonly vout: number;
  readonly owner: string;
  readonly amount: bigint;
}

/** 'prepared': recorded with its reissue kept, not known to be submitted; 'reissued': its ticket committed. */
export type SeizureState = 'prepared' | 'reissued';

export interface Seizure extends SeizureOrder {
  readonly amount: bigint;
  readonly state: SeizureState;
  readonly reissueTxid: string | null;
  readonly outputs: readonly SeizedOutput[];
}

type OutpointRef = { readonly txid: string; readonly vout: number };

/** What an order's outpoints are, checked: each seizable, or why one is not. */
export type SeizableOutputs =
  | { readonly kind: 'ok'; readonly outputs: readonly SeizedOutput[]; readonly amount: bigint }
  | { readonly kind: 'refused'; readonly why: string };

/** Why an outpoint cannot be seized, or its output. */
export type SeizableAnswer =
  | { readonly kind: 'ok'; readonly output: SeizedOutput }
  | { readonly kind: 'refused'; readonly outpoint: string; readonly why: string };

/**
 * Checks an order's outpoints: each must be an unspent, unreserved token output (not a burn) of a
 * frozen or blacklisted address, not seized already. `lock`: the rows are locked (FOR UPDATE, in
 * the caller's transaction) so no batch can reserve them meanwhile.
 */
export async function seizableOutputs(
  q: Queryable,
  outpoints: readonly OutpointRef[],
  lock = false,
): Promise<SeizableOutputs> {
  const rows = await q.query<{
    txid: string;
    vout: number;
    owner: string;
    amount: string;
    op: string;
    spent_by: string | null;
    reserved_by: string | null;
    held: boolean;
    seized: boolean;
  }>(
    `SELECT o.txid, o.vout, o.owner, o.amount::text AS amount, o.op, o.spent_by, o.reserved_by::text AS reserved_by,
            (EXISTS (SELECT 1 FROM address_freezes f WHERE f.address = o.owner)
              OR EXISTS (SELECT 1 FROM address_blacklist b WHERE b.address = o.owner)) AS held,
            EXISTS (SELECT 1 FROM seized_outputs s WHERE s.txid = o.txid AND s.vout = o.vout) AS seized
       FROM unnest($1::text[], $2::int[]) AS wanted(txid, vout)
       JOIN token_outputs o ON o.txid = wanted.txid AND o.vout = wanted.vout
      ORDER BY o.txid, o.vout${lock ? '\n        FOR UPDATE OF o' : ''}`,
    [outpoints.map((o) => o.txid), outpoints.map((o) => o.vout)],
  );
  const found = new Map(rows.map((r) => [`${r.txid}_${r.vout}`, r]));
  for (const o of outpoints) {
    const key = `${o.txid}_${o.vout}`;
    const r = found.get(key);
    if (r === undefined) return { kind: 'refused', why: `${key} is not a known token output` };
    if (r.op === 'burn') return { kind: 'refused', why: `${key} is a burn output` };
    if (r.seized) return { kind: 'refused', why: `${key} was seized already` };
    if (r.spent_by !== null || r.reserved_by !== null)
      return { kind: 'refused', why: `${key} is spent or being spent` };
    if (!r.held)
      return {
        kind: 'refused',
        why: `${key} belongs to ${r.owner}, which is neither frozen nor blacklisted`,
      };
  }
  const outputs = rows.map((r) => ({
    txid: r.txid,
    vout: r.vout,
    owner: r.owner,
    amount: BigInt(r.amount),
  }));
  return { kind: 'ok', outputs, amount: outputs.reduce((sum, o) => sum + o.amount, 0n) };
}

/** A seizure and the reissue kept with it (the bytes every attempt submits). */
export interface PreparedSeizure {
  readonly seizure: Seizure;
  readonly reissue: Uint8Array;
}

/**
 * Records an order with its reissue, built and signed for `amount`, in one transaction (state
 * 'prepared'): the outpoints are checked again under lock and must still add up to `amount`.
 * When the reference was recorded first (a concurrent attempt), that seizure is answered
 * instead ('exists') and nothing is written: `reissue` is then never submitted. Two attempts
 * racing past the first look-up meet at the unique reference (or outpoint): the loser answers
 * the winner's seizure (or refuses, for another order's outpoints).
 */
export async function prepareSeizure(
  db: Db,
  order: SeizureOrder,
  outpoints: readonly OutpointRef[],
  prepared: { readonly amount: bigint; readonly reissue: Uint8Array },
): Promise<
  | ({ kind: 'prepared' } & PreparedSeizure)
  | { kind: 'refused'; why: string }
  | { kind: 'exists'; seizure: Seizure }
> {
  try {
    return await prepareOnce(db, order, outpoints, prepared);
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const standing = await seizureByReference(db, order.reference);
    if (standing !== null) return { kind: 'exists', seizure: standing };
    return { kind: 'refused', why: 'an outpoint was seized already, by another order' };
  }
}

function prepareOnce(
  db: Db,
  order: SeizureOrder,
  outpoints: readonly OutpointRef[],
  prepared: { readonly amount: bigint; readonly reissue: Uint8Array },
): Promise<
  | ({ kind: 'prepared' } & PreparedSeizure)
  | { kind: 'refused'; why: string }
  | { kind: 'exists'; seizure: Seizure }
> {
  return db.transaction(async (tx) => {
    // The outputs first, then the reference: each statement reads what had committed when it
    // began, so an order under this reference that commits between the two (the same order sent
    // twice at once) is seen by the second, and answered as that order rather than refused for
    // the outputs it has just seized. A lock that waited for that order also reads its outputs
    // as not yet seized; the reference, read after, answers it.
    const checked = await seizableOutputs(tx, outpoints, true);
    const standing = await seizureByReference(tx, order.reference);
    if (standing !== null) return { kind: 'exists', seizure: standing };
    if (checked.kind === 'refused') return checked;
    const { outputs, amount } = checked;
    if (amount !== prepared.amount)
      return {
        kind: 'refused',
        why: `the outpoints hold ${amount}, not ${prepared.amount}: send the order again`,
      };
    await tx.query(
      `INSERT INTO seizures (id, reference, reason, reissue_to, amount, actor, at, state, reissue_raw)
       VALUES ($1, $2, $3, $4, $5::numeric, $6, $7, 'prepared', $8)`,
      [
        order.id,
        order.reference,
        order.reason,
        order.reissueTo,
        amount.toString(),
        order.actor,
        order.at,
        prepared.reissue,
      ],
    );
    await tx.query(
      `INSERT INTO seized_outputs (txid, vout, seizure_id, owner, amount)
       SELECT txid, vout, $5::uuid, owner, amount::numeric
         FROM unnest($1::text[], $2::int[], $3::text[], $4::text[]) AS s(txid, vout, owner, amount)`,
      [
        outputs.map((o) => o.txid),
        outputs.map((o) => o.vout),
        outputs.map((o) => o.owner),
        outputs.map((o) => o.amount.toString()),
        order.id,
      ],
    );
    await recordControlEvent(tx, {
      action: 'seize',
      subject: order.reference,
      reason: order.reason,
      actor: order.actor,
      at: order.at,
      detail: {
        seizure: order.id,
        reissueTo: order.reissueTo,
        amount: amount.toString(),
        outpoints: outputs.map((o) => `${o.txid}_${o.vout}`),
      },
    });
    return {
      kind: 'prepared',
      seizure: { ...order, amount, state: 'prepared', reissueTxid: null, outputs },
      reissue: prepared.reissue,
    };
  });
}

/** The reissue kept with a seizure, or null (an order recorded before migration 038 kept none). */
export async function keptReissue(q: Queryable, seizureId: string): Promise<Uint8Array | null> {
  const rows = await q.query<{ reissue_raw: Uint8Array | null }>(
    'SELECT reissue_raw FROM seizures WHERE id = $1',
    [seizureId],
  );
  return rows[0]?.reissue_raw ?? null;
}

/**
 * Keeps `raw` as a seizure's reissue unless one is kept already (the kept one wins and is
 * answered: submit it). A reissued seizure keeps what it has.
 */
export async function keepReissue(q: Queryable, seizureId: string, raw: Uint8Array): Promise<Uint8Array> {
  await q.query(
    `UPDATE seizures SET reissue_raw = $2 WHERE id = $1 AND reissue_raw IS NULL AND state = 'prepared'`,
    [seizureId, raw],
  );
  return (await keptReissue(q, seizureId)) ?? raw;
}

/**
 * Replaces a prepared seizure's reissue that can never be committed with `raw`, and answers the
 * reissue kept afterwards, judged under the seizure's row lock by neverCommittable (from the stale
 * reissue's own bytes). Otherwise nothing is replaced and the stale one is answered.
 */
export async function replaceStaleReissue(
  db: Db,
  seizureId: string,
  stale: Uint8Array,
  raw: Uint8Array,
): Promise<Uint8Array | null> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT 1 FROM seizures WHERE id = $1 FOR UPDATE', [seizureId]);
    await tx.query(
      `UPDATE seizures SET reissue_raw = $3
        WHERE id = $1 AND state = 'prepared' AND reissue_raw = $2 AND ${neverCommittable(4)}`,
      [seizureId, stale, raw, ...neverCommittableParameters(stale)],
    );
    return keptReissue(tx, seizureId);
  });
}

/** Records the reissue's ticket (once: a reissue already recorded is kept). */
export async function recordReissue(q: Queryable, seizureId: string, txid: string): Promise<void> {
  await q.query(
    `UPDATE seizures SET reissue_txid = $2, state = 'reissued' WHERE id = $1 AND reissue_txid IS NULL`,
    [seizureId, txid],
  );
}

/** Prepared seizures, oldest first: the ones a recovery pass completes. */
export async function preparedSeizures(q: Queryable, limit = 100): Promise<Seizure[]> {
  return listSeizures(q, { state: 'prepared', oldestFirst: true, limit });
}

export async function seizureByReference(q: Queryable, reference: string): Promise<Seizure | null> {
  const [found] = await listSeizures(q, { reference });
  return found ?? null;
}

/** Seizures, newest first (one reference or one state when given), with their outputs. */
export async function listSeizures(
  q: Queryable,
  only: {
    readonly reference?: string;
    readonly state?: SeizureState;
    readonly oldestFirst?: boolean;
    readonly limit?: number;
  } = {},
): Promise<Seizure[]> {
  const rows = await q.query<{
    id: string;
    reference: string;
    reason: string;
    reissue_to: string;
    amount: string;
    reissue_txid: string | null;
    state: SeizureState;
    actor: string;
    at: Date;
    outputs: unknown;
  }>(
    `SELECT z.id::text AS id, z.reference, z.reason, z.reissue_to, z.amount::text AS amount, z.reissue_txid,
            z.state, z.actor, z.at,
            (SELECT coalesce(json_agg(json_build_object('txid', s.txid, 'vout', s.vout, 'owner', s.owner,
                                                        'amount', s.amount::text) ORDER BY s.txid, s.vout), '[]')
               FROM seized_outputs s WHERE s.seizure_id = z.id) AS outputs
       FROM seizures z
      WHERE ($1::text IS NULL OR z.reference = $1) AND ($2::text IS NULL OR z.state = $2)
      ORDER BY ${only.oldestFirst === true ? 'z.at, z.id' : 'z.at DESC, z.id DESC'} LIMIT $3`,
    [only.reference ?? null, only.state ?? null, only.limit ?? 500],
  );
  return rows.map((r) => {
    const outputs = (typeof r.outputs === 'string' ? JSON.parse(r.outputs) : r.outputs) as {
      txid: string;
      vout: number;
      owner: string;
      amount: string;
    }[];
    return {
      id: r.id,
      reference: r.reference,
      reason: r.reason,
      reissueTo: r.reissue_to,
      actor: r.actor,
      at: r.at,
      amount: BigInt(r.amount),
      state: r.state,
      reissueTxid: r.reissue_txid,
      outputs: outputs.map((o) => ({ ...o, amount: BigInt(o.amount) })),
    };
  });
}

/** Every seized outpoint (`<txid>_<vout>`): the audit counts their value as seized. */
export async function seizedOutpoints(q: Queryable): Promise<Set<string>> {
  const rows = await q.query<{ txid: string; vout: number }>('SELECT txid, vout FROM seized_outputs');
  return new Set(rows.map((r) => `${r.txid}_${r.vout}`));
}
