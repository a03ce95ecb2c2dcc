// What the service knows of an address, a transaction, an output or a funding output, for the
// console's search box. Plain reads; the route decides what to ask from the query's kind.
import type { Queryable } from '../db/db.js';
import { liveReservation, type TokenOp } from '../wallets/wallet-queries.js';

export interface KnownTransaction {
  readonly txid: string;
  readonly state: 'unconfirmed' | 'mined' | 'failed';
  readonly height: number;
  readonly blockHash: string;
  readonly senders: readonly string[];
  readonly receivers: readonly string[];
  readonly createdAt: Date;
}

export interface KnownOutput {
  readonly txid: string;
  readonly vout: number;
  readonly owner: string;
  readonly amount: bigint;
  readonly op: TokenOp;
  readonly satoshis: bigint;
  readonly state: 'unspent' | 'spent' | 'reserved';
  readonly spentBy: string | null;
  readonly reservedBy: string | null;
}

export interface KnownFundingOutput {
  readonly txid: string;
  readonly vout: number;
  readonly satoshis: bigint;
  readonly state: 'available' | 'reserved' | 'spent';
  readonly reservedBy: string | null;
}

interface TxRow {
  txid: string;
  state: KnownTransaction['state'];
  height: number;
  blk_hash: string;
  senders: string[];
  receivers: string[];
  created_at: Date;
  [column: string]: unknown;
}

interface OutputRow {
  txid: string;
  vout: number;
  owner: string;
  amount: string;
  op: TokenOp;
  satoshis: string;
  spent_by: string | null;
  reserved_by: string | null;
  [column: string]: unknown;
}

const TX_COLUMNS = 't.txid, t.state, t.height, t.blk_hash, t.senders, t.receivers, t.created_at';
// An output's reservation is shown while its ticket is BROADCASTING (liveReservation).
const OUTPUT_COLUMNS = `o.txid, o.vout, o.owner, o.amount, o.op, o.satoshis, o.spent_by, ${liveReservation('o')} AS reserved_by`;

function txOf(row: TxRow): KnownTransaction {
  return {
    txid: row.txid,
    state: row.state,
    height: row.height,
    blockHash: row.blk_hash,
    senders: row.senders,
    receivers: row.receivers,
    createdAt: row.created_at,
  };
}

function outputOf(row: OutputRow): KnownOutput {
  return {
    txid: row.txid,
    vout: row.vout,
    owner: row.owner,
    amount: BigInt(row.amount),
    op: row.op,
    satoshis: BigInt(row.satoshis),
    state: row.reserved_by !== null ? 'reserved' : row.spent_by !== null ? 'spent' : 'unspent',
    spentBy: row.spent_by,
    reservedBy: row.reserved_by,
  };
}

export async function knownTransaction(q: Queryable, txid: string): Promise<KnownTransaction | null> {
  const rows = await q.query<TxRow>(`SELECT ${TX_COLUMNS} FROM transactions t WHERE t.txid = $1`, [txid]);
  return rows[0] === undefined ? null : txOf(rows[0]);
}

/** The token outputs a transaction created, in vout order. */
export async function outputsOfTransaction(q: Queryable, txid: string): Promise<KnownOutput[]> {
  const rows = await q.query<OutputRow>(
    `SELECT ${OUTPUT_COLUMNS} FROM token_outputs o WHERE o.txid = $1 ORDER BY o.vout`,
    [txid],
  );
  return rows.map(outputOf);
}

export async function knownOutput(q: Queryable, txid: string, vout: number): Promise<KnownOutput | null> {
  const rows = await q.query<OutputRow>(
    `SELECT ${OUTPUT_COLUMNS} FROM token_outputs o WHERE o.txid = $1 AND o.vout = $2`,
    [txid, vout],
  );
  return rows[0] === undefined ? null : outputOf(rows[0]);
}

export async function knownFundingOutput(
  q: Queryable,
  txid: string,
  vout: number,
): Promise<KnownFundingOutput | null> {
  const rows = await q.query<{
    txid: string;
    vout: number;
    satoshis: string;
    state: KnownFundingOutput['state'];
    reserved_by: string | null;
  }>(
    // A reserved output is spent once its ticket left BROADCASTING for the network (ADR 0019).
    `SELECT f.txid, f.vout, f.satoshis, f.reserved_by,
            CASE WHEN f.state = 'reserved' AND NOT EXISTS (
                        SELECT 1 FROM tickets k WHERE k.id = f.reserved_by AND k.status = 'BROADCASTING')
                 THEN 'spent' ELSE f.state END AS state
       FROM funding_outputs f WHERE f.txid = $1 AND f.vout = $2`,
    [txid, vout],
  );
  const row = rows[0];
  return row === undefined
    ? null
    : {
        txid: row.txid,
        vout: row.vout,
        satoshis: BigInt(row.satoshis),
        state: row.state,
        reservedBy: row.reserved_by,
      };
}

/** The address's unspent (not burned) outputs, newest first, and how many there are in all. */
export async function unspentOfAddress(
  q: Queryable,
  address: string,
  limit: number,
): Promise<{ outputs: KnownOutput[]; count: number }> {
  const [rows, count] = await Promise.all([
    q.query<OutputRow>(
      `SELECT ${OUTPUT_COLUMNS} FROM token_outputs o
        WHERE o.owner = $1 AND o.spent_by IS NULL AND o.op <> 'burn'
        ORDER BY o.score DESC, o.txid, o.vout LIMIT $2`,
      [address, limit],
    ),
    q.query<{ n: string }>(
      "SELECT count(*)::text AS n FROM token_outputs WHERE owner = $1 AND spent_by IS NULL AND op <> 'burn'",
      [address],
    ),
  ]);
  return { outputs: rows.map(outputOf), count: Number(count[0]?.n ?? 0) };
}

/** The latest transactions concerning an address, newest first. */
export async function transactionsOfAddress(
  q: Queryable,
  address: string,
  limit: number,
): Promise<KnownTransaction[]> {
  const rows = await q.query<TxRow>(
    `SELECT ${TX_COLUMNS} FROM transaction_addresses a JOIN transactions t ON t.txid = a.txid
      WHERE a.address = $1 ORDER BY a.score DESC LIMIT $2`,
    [address, limit],
  );
  return rows.map(txOf);
}

/** The ticket of a transaction, by its final txid or the txid it was submitted with. */
export async function ticketIdOfTransaction(q: Queryable, txid: string): Promise<string | null> {
  const rows = await q.query<{ id: string }>(
    'SELECT id FROM tickets WHERE txid = $1 OR submitted_txid = $1 LIMIT 1',
    [txid],
  );
  return rows[0]?.id ?? null;
}
