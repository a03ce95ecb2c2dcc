// The daily limit (dailyLimitPerAddress) judged where transfers cannot race past it: in the
// transaction that writes a batch, under a lock per sender held to its commit, against every
// transaction committed since the day began. The screening before the batch
// (submission-lookups.ts) refuses early what is over already, but it reads a sum that another
// batch, of this process or another, may add to before this one commits: only this check holds.
import type { OperatorAddresses } from '../../domain/issuer-controls.js';
import type { Queryable } from '../db/db.js';

/** The setting, and where the day began, for one batch. */
export interface DailyLimit {
  readonly perAddressPerDay: bigint;
  readonly since: Date;
  /** The operator's addresses, whose own moves are not limited. */
  readonly operator: OperatorAddresses;
}

/**
 * Takes each sender's lock for the rest of the transaction, in the order given (sorted by the
 * caller, so two batches take shared senders' locks in one order). A batch that waits here
 * sums, once it has the lock, what the batch before it committed.
 */
export async function holdDailySums(tx: Queryable, senders: readonly string[]): Promise<void> {
  if (senders.length === 0) return;
  await tx.query(
    "SELECT pg_advisory_xact_lock(hashtext('daily_sent'), hashtext(a)) FROM unnest($1::text[]) AS u(a)",
    [senders],
  );
}

/**
 * What each of `senders` sent to others (amountSent of domain/issuer-controls.ts: what the
 * transaction's owners gain beyond what their own inputs put in, burns left out) in transactions
 * not failed recorded since `since`: the sum the screening reads too (SENT_SINCE).
 */
export async function sentSince(
  tx: Queryable,
  senders: readonly string[],
  since: Date,
): Promise<Map<string, bigint>> {
  if (senders.length === 0) return new Map();
  const rows = await tx.query<{ address: string; sent: string }>(
    `SELECT ta.address, sum(x.amount)::text AS sent ${SENT_SINCE('$2')} AND ta.address = ANY($1::text[])
      GROUP BY ta.address`,
    [senders, since],
  );
  return new Map(rows.map((r) => [r.address, BigInt(r.sent)]));
}

/**
 * The FROM and WHERE of a sum (`sum(x.amount)`) of what addresses (`ta.address`) sent to others
 * since the timestamp parameter `since`, a row a transaction; the caller adds its own address
 * condition and GROUP BY. A transaction's amount is amountSent's: per owner, its outputs (burns
 * left out) less the outputs it spent (`spent_by`, kept while the transaction is not failed),
 * the gains summed.
 */
export const SENT_SINCE = (since: string): string =>
  `FROM transaction_addresses ta
       JOIN transactions t ON t.txid = ta.txid AND t.state <> 'failed'
            AND t.created_at >= ${since}::timestamptz AND ta.address = ANY(t.senders)
       CROSS JOIN LATERAL (
         SELECT COALESCE(sum(g.gain), 0) AS amount
           FROM (SELECT sum(f.amount) AS gain
                   FROM (SELECT o.owner, o.amount FROM token_outputs o WHERE o.txid = t.txid AND o.op <> 'burn'
                         UNION ALL
                         SELECT i.owner, -i.amount FROM token_outputs i WHERE i.spent_by = t.txid) f
                  GROUP BY f.owner HAVING sum(f.amount) > 0) g
       ) x
      WHERE ${since}::timestamptz IS NOT NULL`;
