// What a wallet reads: balances, spendable outputs, outputs by outpoint (for transfer
// validation), the token's supply and the holders' redemptions.
//
// An output is spendable (store/wallets/spendable.ts) when no transaction spends it, no live ticket
// reserves it, and it is not a burn. A submitted transfer marks its inputs spent and reserved
// and inserts its outputs at once, so the spendable sum is the balance the contract asks for
// ("a wallet sees its change at once"). Balances are kept per address as outputs change
// (store/wallets/address-balances.ts), so reading one does not sum the owner's outputs.

import { MAX_VOUT } from '../../domain/index-bounds.js';
import { NO_PARAMETERS, type Queryable } from '../db/db.js';
import { SCORE_LAST_VALUE } from '../feed/score.js';
import { KEPT_BALANCES } from './address-balances.js';
import { SPENDABLE } from './spendable.js';

export type TokenOp = 'deploy+mint' | 'transfer' | 'burn';
export type SortOrder = 'asc' | 'desc';

/**
 * The change feed's stamp: the score sequence's last value S (balance-cache.ts). Every change that
 * can move a balance draws a score before it commits, so while S stands still no such change can
 * become visible. A function call, read when evaluated: never below what the statement's snapshot
 * shows.
 */
const FEED_STAMP = `SELECT ${SCORE_LAST_VALUE}::text AS stamp`;

/** The change feed's stamp, '0' before the first score. */
export async function feedStamp(q: Queryable): Promise<string> {
  const rows = await q.query<{ stamp: string | null }>(FEED_STAMP, NO_PARAMETERS);
  return rows[0]?.stamp ?? '0';
}

/** Spendable token amount of each address (every address present, 0n when it owns none). */
export async function balances(q: Queryable, addresses: readonly string[]): Promise<Map<string, bigint>> {
  const result = new Map<string, bigint>(addresses.map((a) => [a, 0n]));
  if (result.size === 0) return result;
  const rows = await q.query<{ owner: string; total: string }>(KEPT_BALANCES, [[...result.keys()]]);
  for (const row of rows) result.set(row.owner, BigInt(row.total));
  return result;
}

/**
 * The balances of `addresses` and the change feed's stamp in one statement. The stamp is read
 * while the statement runs, after its snapshot was taken: it says whether the feed has moved since
 * an earlier look, not which changes the balances hold (a write may have drawn at or below it and
 * not yet committed), so the balances must not be kept under it.
 */
export async function balancesWithStamp(
  q: Queryable,
  addresses: readonly string[],
): Promise<{ stamp: string; balances: Map<string, bigint> }> {
  const result = new Map<string, bigint>(addresses.map((a) => [a, 0n]));
  const rows = await q.query<{ stamp: string | null; owner: string | null; total: string | null }>(
    `SELECT s.stamp, b.owner, b.total FROM (${FEED_STAMP}) s LEFT JOIN (${KEPT_BALANCES}) b ON true`,
    [[...result.keys()]],
  );
  for (const row of rows)
    if (row.owner !== null && row.total !== null) result.set(row.owner, BigInt(row.total));
  return { stamp: rows[0]?.stamp ?? '0', balances: result };
}

export interface UnspentOutput {
  readonly txid: string;
  readonly vout: number;
  readonly owner: string;
  readonly amount: bigint;
  readonly op: TokenOp;
  /** Locking script. */
  readonly script: Uint8Array;
  readonly satoshis: bigint;
  /**
   * The score its transaction had when the output was recorded: mining does not change it
   * (docs/adr/0003-outputs-keep-their-score.md), so a list in score order keeps its order.
   */
  readonly score: bigint;
  /** Of the creating transaction: 0 unless mined. */
  readonly height: number;
  readonly idx: number;
}

export interface UnspentQuery {
  readonly addresses: readonly string[];
  /** 1-based. */
  readonly page: number;
  readonly size: number;
  readonly order: SortOrder;
}

interface UnspentRow {
  txid: string;
  vout: number;
  owner: string;
  amount: string;
  op: TokenOp;
  script: Uint8Array;
  satoshis: string;
  score: string;
  height: number;
  idx: number;
  [column: string]: unknown;
}

/** Spendable outputs of the addresses ordered by (score, txid, vout), one page of them. */
export async function unspentOutputs(q: Queryable, query: UnspentQuery): Promise<UnspentOutput[]> {
  return (await unspentOutputPages(q, [query]))[0]!;
}

/**
 * Several pages of spendable outputs, one per query and in the queries' order: one statement
 * for the queries of each order (POST /v2/utxos reads a batch of them at once).
 */
export async function unspentOutputPages(
  q: Queryable,
  queries: readonly UnspentQuery[],
): Promise<UnspentOutput[][]> {
  for (const { page, size } of queries) {
    if (!Number.isSafeInteger(page) || page < 1) throw new RangeError(`invalid page ${page}`);
    if (!Number.isSafeInteger(size) || size < 1) throw new RangeError(`invalid page size ${size}`);
  }
  const pages: UnspentOutput[][] = queries.map(() => []);
  for (const order of ['asc', 'desc'] as const) {
    const asked = [...queries.entries()].filter(
      ([, query]) => query.order === order && query.addresses.length > 0,
    );
    if (asked.length === 0) continue;
    const owners = asked.flatMap(([i, query]) =>
      [...new Set(query.addresses)].map((owner) => [i, owner] as const),
    );
    const rows = await q.query<UnspentRow & { asked: number }>(unspentPagesSql(order), [
      asked.map(([i]) => i),
      asked.map(([, query]) => query.size),
      asked.map(([, query]) => (query.page - 1) * query.size),
      owners.map(([i]) => i),
      owners.map(([, owner]) => owner),
    ]);
    for (const row of rows) pages[row.asked]!.push(unspentOutputOf(row));
  }
  return pages;
}

/**
 * Each query's addresses' first `skip + size` outputs in order, read from each address's own
 * part of the spendable index (owner, score, txid, vout), then the query's page of their merge;
 * only the pages' rows are joined to their transactions. Reading every spendable output of the
 * addresses, joining each and sorting them all cost 4.4 ms a page in bench:load, whose wallets
 * hold hundreds of outputs each.
 */
function unspentPagesSql(order: SortOrder): string {
  const direction = order === 'desc' ? 'DESC' : 'ASC';
  const by = (alias: string) => ['score', 'txid', 'vout'].map((c) => `${alias}.${c} ${direction}`).join(', ');
  return `WITH asked AS (SELECT * FROM unnest($1::int[], $2::int[], $3::int[]) AS r(asked, size, skip)),
     page AS MATERIALIZED (
       SELECT r.asked, p.* FROM asked r
       CROSS JOIN LATERAL (
         SELECT o.* FROM unnest($4::int[], $5::text[]) AS a(asked, owner)
         CROSS JOIN LATERAL (
           SELECT o.txid, o.vout, o.owner, o.amount, o.op, o.script, o.satoshis, o.score
             FROM token_outputs o
            WHERE o.owner = a.owner AND ${SPENDABLE}
            ORDER BY ${by('o')}
            LIMIT r.size + r.skip) o
         WHERE a.asked = r.asked
         ORDER BY ${by('o')}
         LIMIT r.size OFFSET r.skip) p)
     SELECT p.asked, p.txid, p.vout, p.owner, p.amount, p.op, p.script, p.satoshis, p.score, t.height, t.idx
       FROM page p JOIN transactions t ON t.txid = p.txid
      ORDER BY p.asked, ${by('p')}`;
}

/**
 * The token output at one outpoint, spent or not (burns included), with its creating
 * transaction's score, height and idx; null when the store has no token output there.
 */
export async function tokenOutputAt(q: Queryable, txid: string, vout: number): Promise<UnspentOutput | null> {
  const rows = await q.query<UnspentRow>(
    `SELECT o.txid, o.vout, o.owner, o.amount, o.op, o.script, o.satoshis, o.score, t.height, t.idx
       FROM token_outputs o JOIN transactions t ON t.txid = o.txid
      WHERE o.txid = $1 AND o.vout = $2`,
    [txid, vout],
  );
  return rows[0] === undefined ? null : unspentOutputOf(rows[0]);
}

function unspentOutputOf(row: UnspentRow): UnspentOutput {
  return {
    txid: row.txid,
    vout: row.vout,
    owner: row.owner,
    amount: BigInt(row.amount),
    op: row.op,
    script: row.script,
    satoshis: BigInt(row.satoshis),
    score: BigInt(row.score),
    height: row.height,
    idx: row.idx,
  };
}

export type OutputState = 'unspent' | 'spent' | 'reserved';

/**
 * An output's live reservation, in SQL (`alias` a token_outputs row): its reserved_by while that
 * ticket is BROADCASTING, else NULL. reserved_by is written once, at the claim, with spent_by, and
 * not cleared when the network takes the transaction (docs/adr/0019-reservations-end-with-their-ticket.md):
 * the ticket's status says whether the output is still merely reserved (a failed ticket's inputs are
 * released, both columns cleared). Tickets are deleted only by the submission batch that made them,
 * after it released their inputs.
 */
export const liveReservation = (alias: string): string =>
  `(SELECT k.id::text FROM tickets k WHERE k.id = ${alias}.reserved_by AND k.status = 'BROADCASTING')`;

export interface StoredTokenOutput {
  readonly txid: string;
  readonly vout: number;
  readonly owner: string;
  readonly amount: bigint;
  readonly op: TokenOp;
  readonly lockingScript: Uint8Array;
  readonly satoshis: bigint;
  /** reserved: a ticket still BROADCASTING holds it; spent: a transaction spends it; else unspent. */
  readonly state: OutputState;
  /** The ticket holding it, when reserved (its live reservation: liveReservation). */
  readonly reservedBy: string | null;
  /** The transaction spending it, when spent (or reserved). */
  readonly spentBy: string | null;
}

export interface OutpointRow {
  txid: string;
  vout: number;
  owner: string;
  amount: string;
  op: TokenOp;
  script: Uint8Array;
  satoshis: string;
  spent_by: string | null;
  reserved_by: string | null;
  [column: string]: unknown;
}

/** Splits `<txid>_<vout>` (the vout a non-negative integer); the txid is lower-cased. */
export function parseOutpoint(outpoint: string): { txid: string; vout: number } {
  const cut = outpoint.lastIndexOf('_');
  const voutText = outpoint.slice(cut + 1);
  const vout = Number(voutText);
  if (cut <= 0 || !/^\d{1,10}$/.test(voutText) || vout > MAX_VOUT) {
    throw new RangeError(`invalid outpoint ${JSON.stringify(outpoint)}`);
  }
  return { txid: outpoint.slice(0, cut).toLowerCase(), vout };
}

/**
 * The stored token outputs at these outpoints (`<txid>_<vout>`), in one query, keyed by
 * `<txid>_<vout>` (txid lower-case, vout in decimal). Outpoints the store does not know are
 * absent from the map. Throws RangeError for a malformed outpoint.
 */
export async function tokenOutputsByOutpoint(
  q: Queryable,
  outpoints: readonly string[],
): Promise<Map<string, StoredTokenOutput>> {
  const result = new Map<string, StoredTokenOutput>();
  const parsed = outpoints.map(parseOutpoint);
  if (parsed.length === 0) return result;
  const rows = await q.query<OutpointRow>(
    `SELECT o.txid, o.vout, o.owner, o.amount, o.op, o.script, o.satoshis, o.spent_by,
            ${liveReservation('o')} AS reserved_by
       FROM unnest($1::text[], $2::int[]) AS wanted(txid, vout)
       JOIN token_outputs o ON o.txid = wanted.txid AND o.vout = wanted.vout`,
    [parsed.map((p) => p.txid), parsed.map((p) => p.vout)],
  );
  for (const row of rows) result.set(`${row.txid}_${row.vout}`, storedTokenOutputOf(row));
  return result;
}

/** A token_outputs row (txid, vout, owner, amount, op, script, satoshis, spent_by, reserved_by) as the domain reads it. */
export function storedTokenOutputOf(row: OutpointRow): StoredTokenOutput {
  const state: OutputState =
    row.reserved_by !== null ? 'reserved' : row.spent_by !== null ? 'spent' : 'unspent';
  return {
    txid: row.txid,
    vout: row.vout,
    owner: row.owner,
    amount: BigInt(row.amount),
    op: row.op,
    lockingScript: row.script,
    satoshis: BigInt(row.satoshis),
    state,
    reservedBy: row.reserved_by,
    spentBy: row.spent_by,
  };
}

export interface Supply {
  /** Unspent, not burned, not seized, owned by neither the mint nor the burn address. */
  readonly circulating: bigint;
  /** Outputs a seizure took (never cosigned again; their value was reissued): issue 32. */
  readonly seized: bigint;
  /** Unspent, owned by the mint address. */
  readonly treasury: bigint;
  /** Burn outputs, plus unspent outputs owned by the burn address. */
  readonly burned: bigint;
}

/**
 * Where the supply is. Counts every output no transaction spends (those a live ticket
 * spends are replaced by that ticket's outputs), so circulating + treasury + burned + seized
 * is the genesis amount at every moment. Reads the whole table: for reports, not hot paths.
 */
export async function supply(
  q: Queryable,
  token: { mintAddress: string; burnAddress: string },
): Promise<Supply> {
  const rows = await q.query<{ circulating: string; treasury: string; burned: string; seized: string }>(
    `SELECT
       coalesce(sum(o.amount) FILTER (WHERE o.op <> 'burn' AND o.spent_by IS NULL AND o.owner <> $1 AND o.owner <> $2
                                       AND s.txid IS NULL), 0) AS circulating,
       coalesce(sum(o.amount) FILTER (WHERE o.op <> 'burn' AND o.spent_by IS NULL AND o.owner = $1 AND o.owner <> $2), 0)
         AS treasury,
       coalesce(sum(o.amount) FILTER (WHERE o.op = 'burn' OR (o.spent_by IS NULL AND o.owner = $2)), 0) AS burned,
       coalesce(sum(o.amount) FILTER (WHERE o.op <> 'burn' AND o.spent_by IS NULL AND o.owner <> $1 AND o.owner <> $2
                                       AND s.txid IS NOT NULL), 0) AS seized
     FROM token_outputs o LEFT JOIN seized_outputs s ON s.txid = o.txid AND s.vout = o.vout`,
    [token.mintAddress, token.burnAddress],
  );
  const row = rows[0];
  if (row === undefined) throw new Error('supply: no row');
  return {
    circulating: BigInt(row.circulating),
    treasury: BigInt(row.treasury),
    burned: BigInt(row.burned),
    seized: BigInt(row.seized),
  };
}

/** Unspent transfers to the burn address: holders' redemptions (counted in `burned`). */
export async function redeemedAmount(q: Queryable, burnAddress: string): Promise<bigint> {
  const rows = await q.query<{ n: string }>(
    "SELECT coalesce(sum(amount), 0)::text AS n FROM token_outputs WHERE owner = $1 AND op <> 'burn' AND spent_by IS NULL",
    [burnAddress],
  );
  return BigInt(rows[0]?.n ?? '0');
}
