// Test data written straight into the store with SQL, keeping the write path's invariants:
// a transaction record with its addresses and outputs under one drawn score; spending
// marks inputs spent_by (and reserved_by while a ticket is live); a state change draws a
// new score for the record, its addresses and its outputs.
import { randomBytes } from 'node:crypto';

import { uuidv7 } from '../../src/crypto/random-id.js';
import type { TicketStatus } from '../../src/domain/ticket-state.js';
import { TICKET_STATUS_RANK } from '../../src/domain/ticket-state.js';
import type { Db, Queryable } from '../../src/store/db/db.js';
import { nextScores } from '../../src/store/feed/score.js';

export function randomTxid(): string {
  return randomBytes(32).toString('hex');
}

/**
 * `count` available funding outputs (vouts 0 to count - 1) of one new transaction, no lease, of
 * `satoshis(vout)` each; answers the transaction's txid.
 */
export async function seedFundingOutputs(
  q: Queryable,
  count: number,
  satoshis: (vout: number) => number,
): Promise<string> {
  const txid = randomTxid();
  for (let vout = 0; vout < count; vout++)
    await q.query(
      `INSERT INTO funding_outputs (txid, vout, satoshis, script, state) VALUES ($1, $2, $3, '\\x76a9'::bytea, 'available')`,
      [txid, vout, satoshis(vout)],
    );
  return txid;
}

export interface SeedOutput {
  readonly owner: string;
  readonly amount: bigint;
  readonly op?: 'deploy+mint' | 'transfer' | 'burn';
  readonly satoshis?: bigint;
  readonly script?: Uint8Array;
}

export interface SeedBlock {
  readonly height: number;
  readonly idx: number;
  readonly hash: string;
  readonly time: number;
}

export interface SeedTransaction {
  readonly txid?: string;
  readonly rawTx?: Uint8Array;
  /** Outpoints `<txid>_<vout>` it spends: marked spent_by (and reserved_by when `ticketId`). */
  readonly spends?: readonly string[];
  /** Owners of its inputs; defaults to the owners of the outputs it spends. */
  readonly senders?: readonly string[];
  /** Its token outputs, numbered from vout 0 (or from `firstVout`). */
  readonly outputs?: readonly SeedOutput[];
  readonly firstVout?: number;
  readonly state?: 'unconfirmed' | 'mined' | 'failed';
  readonly block?: SeedBlock;
  /** A live ticket reserving its inputs. */
  readonly ticketId?: string;
}

export interface SeededTransaction {
  readonly txid: string;
  readonly score: bigint;
  readonly outpoints: readonly string[];
}

function splitOutpoint(outpoint: string): [string, number] {
  const cut = outpoint.lastIndexOf('_');
  return [outpoint.slice(0, cut), Number(outpoint.slice(cut + 1))];
}

async function ownersOf(tx: Queryable, outpoints: readonly string[]): Promise<string[]> {
  const owners: string[] = [];
  for (const outpoint of outpoints) {
    const [txid, vout] = splitOutpoint(outpoint);
    const rows = await tx.query<{ owner: string }>(
      'SELECT owner FROM token_outputs WHERE txid = $1 AND vout = $2',
      [txid, vout],
    );
    const owner = rows[0]?.owner;
    if (owner === undefined) throw new Error(`seed: no token output ${outpoint}`);
    if (!owners.includes(owner)) owners.push(owner);
  }
  return owners;
}

/** Inserts one change-feed record with its addresses and outputs, and spends its inputs. */
export async function seedTransaction(db: Db, t: SeedTransaction = {}): Promise<SeededTransaction> {
  const txid = t.txid ?? randomTxid();
  const outputs = t.outputs ?? [];
  const firstVout = t.firstVout ?? 0;
  const state = t.state ?? (t.block === undefined ? 'unconfirmed' : 'mined');
  const block = t.block ?? { height: 0, idx: 0, hash: '', time: 0 };
  const spends = t.spends ?? [];
  return db.transaction(async (tx) => {
    const senders = t.senders ?? (await ownersOf(tx, spends));
    const receivers = [...new Set(outputs.map((o) => o.owner))];
    for (const outpoint of spends) {
      const [inTxid, inVout] = splitOutpoint(outpoint);
      await tx.query(
        'UPDATE token_outputs SET spent_by = $3, reserved_by = $4 WHERE txid = $1 AND vout = $2',
        [inTxid, inVout, txid, t.ticketId ?? null],
      );
    }
    const [score] = await nextScores(tx, 1);
    await tx.query(
      `INSERT INTO transactions (txid, raw_tx, senders, receivers, outs, state, height, idx, blk_hash, blk_time, score)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        txid,
        t.rawTx ?? new Uint8Array(randomBytes(60)),
        senders,
        receivers,
        outputs.map((_, i) => firstVout + i),
        state,
        block.height,
        block.idx,
        block.hash,
        block.time,
        score!,
      ],
    );
    await tx.query(
      'INSERT INTO transaction_addresses (address, txid, score) SELECT DISTINCT a, $2::text, $3::bigint FROM unnest($1::text[]) AS a',
      [[...senders, ...receivers], txid, score!],
    );
    const outpoints: string[] = [];
    for (const [i, o] of outputs.entries()) {
      const vout = firstVout + i;
      await tx.query(
        `INSERT INTO token_outputs (txid, vout, owner, amount, op, script, satoshis, score)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [
          txid,
          vout,
          o.owner,
          o.amount,
          o.op ?? 'transfer',
          o.script ?? new Uint8Array([0x76, 0xa9, vout]),
          o.satoshis ?? 1n,
          score!,
        ],
      );
      outpoints.push(`${txid}_${vout}`);
    }
    return { txid, score: score!, outpoints };
  });
}

/** Gives a record a new state (and block), under a new score, as the tracker would. */
export async function restateTransaction(
  db: Db,
  txid: string,
  state: 'unconfirmed' | 'mined' | 'failed',
  block: SeedBlock = { height: 0, idx: 0, hash: '', time: 0 },
): Promise<bigint> {
  return db.transaction(async (tx) => {
    const [score] = await nextScores(tx, 1);
    await tx.query(
      `UPDATE transactions SET state = $2, height = $3, idx = $4, blk_hash = $5, blk_time = $6, score = $7,
              updated_at = now() WHERE txid = $1`,
      [txid, state, block.height, block.idx, block.hash, block.time, score!],
    );
    await tx.query('UPDATE transaction_addresses SET score = $2 WHERE txid = $1', [txid, score!]);
    return score!;
  });
}

export interface SeedTicket {
  readonly id?: string;
  readonly txid?: string;
  readonly rawTx?: Uint8Array;
  readonly status?: TicketStatus;
  readonly callbackUrl?: string | null;
  readonly errors?: string | null;
  readonly apiKeyId?: string | null;
  readonly createdAt?: Date;
  readonly updatedAt?: Date;
}

/** Inserts a ticket row; returns its id. */
export async function seedTicket(q: Queryable, t: SeedTicket = {}): Promise<string> {
  const createdAt = t.createdAt ?? new Date();
  const id = t.id ?? uuidv7(createdAt.getTime());
  const status = t.status ?? 'BROADCASTING';
  await q.query(
    `INSERT INTO tickets (id, txid, raw_tx, status, status_rank, callback_url, errors, api_key_id, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      id,
      t.txid ?? randomTxid(),
      t.rawTx ?? new Uint8Array(randomBytes(60)),
      status,
      TICKET_STATUS_RANK[status],
      t.callbackUrl ?? null,
      t.errors ?? null,
      t.apiKeyId ?? null,
      createdAt,
      t.updatedAt ?? createdAt,
    ],
  );
  return id;
}

/** Clears the reservation of a ticket's inputs (the network accepted it). */
export async function releaseReservation(q: Queryable, ticketId: string): Promise<void> {
  await q.query('UPDATE token_outputs SET reserved_by = NULL WHERE reserved_by = $1', [ticketId]);
}
