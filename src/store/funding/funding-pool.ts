// The funding pool's outputs (table funding_outputs): small P2PKH outputs of the funding key,
// each spent whole by one transfer. Here: the pool's level (what the refill, the alert, the
// metrics and the operator's routes read), the outputs a split adds, and which outputs of the
// funding key are recorded already. Leasing them is funding-leases.ts's; reserving them goes
// with the submissions (submission-claims.ts), giving them back with the failures that do it
// (submission-writes.ts, feed-writes.ts). A reserved output is spent once its ticket left
// BROADCASTING for the network: nothing writes it then (docs/adr/0019-reservations-end-with-their-ticket.md).
import type { Queryable } from '../db/db.js';

/** The available outputs: how many, and the satoshis they hold. */
export interface AvailableFunding {
  readonly outputs: number;
  readonly satoshis: bigint;
}

/** How many outputs are available, and their satoshis (through the pool's partial index). */
export async function availableFunding(q: Queryable): Promise<AvailableFunding> {
  const rows = await q.query<{ n: string; sats: string }>(
    "SELECT count(*) AS n, coalesce(sum(satoshis), 0)::text AS sats FROM funding_outputs WHERE state = 'available'",
  );
  return { outputs: Number(rows[0]?.n ?? 0), satoshis: BigInt(rows[0]?.sats ?? 0) };
}

/** How many outputs are available. */
export async function availableFundingCount(q: Queryable): Promise<number> {
  return (await availableFunding(q)).outputs;
}

/**
 * How many outputs are available, counted up to `limit` (the answer is min(available, limit)):
 * for "is the pool below its low-water mark?", asked often, which must not scan a large pool.
 */
export async function availableFundingUpTo(q: Queryable, limit: number): Promise<number> {
  if (limit <= 0) return 0;
  const rows = await q.query<{ n: string }>(
    `SELECT count(*) AS n FROM (SELECT 1 FROM funding_outputs WHERE state = 'available' LIMIT $1) AS up_to`,
    [limit],
  );
  return Number(rows[0]?.n ?? 0);
}

/** The pool as the operator sees it. */
export interface FundingPoolLevel {
  readonly available: number;
  /** Available outputs of at least `usableFrom` satoshis (those that pay a typical transfer). */
  readonly usable: number;
  /** Picked by a ticket still BROADCASTING (the network has not taken its transaction yet). */
  readonly reserved: number;
  /** Satoshis in available outputs. */
  readonly availableSatoshis: bigint;
}

/** The pool's level in one read of the whole table (for reports, not hot paths). */
export async function fundingPoolLevel(q: Queryable, usableFrom = 0n): Promise<FundingPoolLevel> {
  const rows = await q.query<{ available: string; usable: string; reserved: string; sats: string }>(
    `SELECT count(*) FILTER (WHERE state = 'available')::text AS available,
            count(*) FILTER (WHERE state = 'available' AND satoshis >= $1)::text AS usable,
            (SELECT count(*) FROM tickets k JOIN funding_outputs r ON r.reserved_by = k.id
              WHERE k.status = 'BROADCASTING' AND r.state = 'reserved')::text AS reserved,
            coalesce(sum(satoshis) FILTER (WHERE state = 'available'), 0)::text AS sats
       FROM funding_outputs`,
    [usableFrom.toString()],
  );
  const row = rows[0];
  return {
    available: Number(row?.available ?? 0),
    usable: Number(row?.usable ?? 0),
    reserved: Number(row?.reserved ?? 0),
    availableSatoshis: BigInt(row?.sats ?? 0),
  };
}

/**
 * Adds a split's pool outputs, available: output i pays `satoshis[i]` to `script`. Outputs
 * recorded already (a split sent again after a crash) are left as they are.
 */
export async function addPoolOutputs(
  q: Queryable,
  txid: string,
  satoshis: readonly bigint[],
  script: Uint8Array,
): Promise<void> {
  await q.query(
    `INSERT INTO funding_outputs (txid, vout, satoshis, script, state)
     SELECT $1, u.vout - 1, u.satoshis, $3, 'available' FROM unnest($2::bigint[]) WITH ORDINALITY AS u(satoshis, vout)
     ON CONFLICT DO NOTHING`,
    [txid, satoshis.map((s) => s.toString()), script],
  );
}

/** The vouts of `txid` that are pool outputs (a split's). */
export async function poolVoutsOf(q: Queryable, txid: string): Promise<Set<number>> {
  const rows = await q.query<{ vout: number }>('SELECT vout FROM funding_outputs WHERE txid = $1', [txid]);
  return new Set(rows.map((r) => Number(r.vout)));
}

/** Outputs of these transactions recorded as pool outputs or as reserve, as `txid:vout`. */
export async function recordedFundingOutpoints(q: Queryable, txids: readonly string[]): Promise<Set<string>> {
  const rows = await q.query<{ txid: string; vout: number }>(
    `SELECT txid, vout FROM funding_outputs WHERE txid = ANY($1::text[])
     UNION ALL SELECT txid, vout FROM funding_reserve WHERE txid = ANY($1::text[])`,
    [txids],
  );
  return new Set(rows.map((r) => `${r.txid}:${Number(r.vout)}`));
}

/**
 * Keeps a funding transaction's raw bytes (migration 045): a split, the parent of the funding
 * inputs it pays, or an operator's payment, the parent of a split.
 */
export async function keepFundingTransaction(q: Queryable, txid: string, raw: Uint8Array): Promise<void> {
  await q.query('INSERT INTO funding_transactions (txid, raw_tx) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
    txid,
    raw,
  ]);
}

/** A kept funding transaction's raw bytes (a split, an operator's payment), or null. */
export async function fundingTransaction(q: Queryable, txid: string): Promise<Uint8Array | null> {
  const rows = await q.query<{ raw_tx: Uint8Array }>(
    'SELECT raw_tx FROM funding_transactions WHERE txid = $1',
    [txid],
  );
  return rows[0]?.raw_tx ?? null;
}
