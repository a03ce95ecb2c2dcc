// Seizures (migration 021): an order's outpoints taken out of circulation for good (the
// submission look-ups refuse to cosign them: OUTPUT_SEIZED) and their value reissued to the
// address the order names. The order, its outpoints and its record in control_events are
// written in one transaction; the reissue's txid is set once its mint is broadcast.
import type { Db, Queryable } from '../db/db.js';
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

export interface Seizure extends SeizureOrder {
  readonly amount: bigint;
  readonly reissueTxid: string | null;
  readonly outputs: readonly SeizedOutput[];
}

/** Why an outpoint cannot be seized, or its output. */
export type SeizableAnswer =
  | { readonly kind: 'ok'; readonly output: SeizedOutput }
  | { readonly kind: 'refused'; readonly outpoint: string; readonly why: string };

/**
 * Checks and records an order in one transaction: each outpoint must be an unspent, unreserved
 * token output (not a burn) of a frozen or blacklisted address, not seized already. The rows
 * are locked (FOR UPDATE) so no batch can reserve them meanwhile.
 */
export async function recordSeizure(
  db: Db,
  order: SeizureOrder,
  outpoints: readonly { readonly txid: string; readonly vout: number }[],
): Promise<
  | { kind: 'recorded'; seizure: Seizure }
  | { kind: 'refused'; why: string }
  | { kind: 'exists'; seizure: Seizure }
> {
  return db.transaction(async (tx) => {
    const standing = await seizureByReference(tx, order.reference);
    if (standing !== null) return { kind: 'exists', seizure: standing };
    const rows = await tx.query<{
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
        ORDER BY o.txid, o.vout
          FOR UPDATE OF o`,
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
    const amount = outputs.reduce((sum, o) => sum + o.amount, 0n);
    await tx.query(
      `INSERT INTO seizures (id, reference, reason, reissue_to, amount, actor, at)
       VALUES ($1, $2, $3, $4, $5::numeric, $6, $7)`,
      [order.id, order.reference, order.reason, order.reissueTo, amount.toString(), order.actor, order.at],
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
    return { kind: 'recorded', seizure: { ...order, amount, reissueTxid: null, outputs } };
  });
}

/** Records the reissue's mint (once: a reissue already recorded is kept). */
export async function recordReissue(q: Queryable, seizureId: string, txid: string): Promise<void> {
  await q.query('UPDATE seizures SET reissue_txid = $2 WHERE id = $1 AND reissue_txid IS NULL', [
    seizureId,
    txid,
  ]);
}

export async function seizureByReference(q: Queryable, reference: string): Promise<Seizure | null> {
  const [found] = await listSeizures(q, reference);
  return found ?? null;
}

/** Seizures, newest first (one reference when given), with their outputs. */
export async function listSeizures(q: Queryable, reference?: string): Promise<Seizure[]> {
  const rows = await q.query<{
    id: string;
    reference: string;
    reason: string;
    reissue_to: string;
    amount: string;
    reissue_txid: string | null;
    actor: string;
    at: Date;
    outputs: unknown;
  }>(
    `SELECT z.id::text AS id, z.reference, z.reason, z.reissue_to, z.amount::text AS amount, z.reissue_txid,
            z.actor, z.at,
            (SELECT coalesce(json_agg(json_build_object('txid', s.txid, 'vout', s.vout, 'owner', s.owner,
                                                        'amount', s.amount::text) ORDER BY s.txid, s.vout), '[]')
               FROM seized_outputs s WHERE s.seizure_id = z.id) AS outputs
       FROM seizures z WHERE ($1::text IS NULL OR z.reference = $1) ORDER BY z.at DESC, z.id DESC LIMIT 500`,
    [reference ?? null],
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
