// The blacklist (address_blacklist, migration 021): addresses that can neither send nor
// receive. The current set is read by every submission batch's look-ups; each change is
// recorded in control_events (append-only) in the same transaction.
import type { Db, Queryable } from '../db/db.js';
import { recordControlEvent } from './control-events.js';

export interface Listing {
  readonly address: string;
  readonly reason: string;
  readonly listedBy: string;
  readonly listedAt: Date;
}

export interface ListingChange {
  readonly address: string;
  readonly reason: string;
  readonly actor: string;
  readonly at: Date;
}

interface ListingRow extends Record<string, unknown> {
  address: string;
  reason: string;
  listed_by: string;
  listed_at: Date;
}

const listingOf = (r: ListingRow): Listing => ({
  address: r.address,
  reason: r.reason,
  listedBy: r.listed_by,
  listedAt: r.listed_at,
});

/** Which of `addresses` are blacklisted. */
export async function blacklistedAmong(q: Queryable, addresses: readonly string[]): Promise<Set<string>> {
  if (addresses.length === 0) return new Set();
  const rows = await q.query<{ address: string }>(
    'SELECT address FROM address_blacklist WHERE address = ANY($1::text[])',
    [[...new Set(addresses)]],
  );
  return new Set(rows.map((r) => r.address));
}

/** Blacklists an address; already listed: the standing listing, `changed: false`, nothing recorded. */
export async function blacklistAddress(
  db: Db,
  change: ListingChange,
): Promise<{ listing: Listing; changed: boolean }> {
  return db.transaction(async (tx) => {
    // An unblacklist committed between the insert that found the listing and the read of it
    // leaves nothing to answer: the address is no longer listed, so it is listed now.
    for (;;) {
      const [inserted] = await tx.query<ListingRow>(
        `INSERT INTO address_blacklist (address, reason, listed_by, listed_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (address) DO NOTHING RETURNING address, reason, listed_by, listed_at`,
        [change.address, change.reason, change.actor, change.at],
      );
      if (inserted !== undefined) {
        await recordControlEvent(tx, { action: 'blacklist', subject: change.address, ...who(change) });
        return { listing: listingOf(inserted), changed: true };
      }
      const [standing] = await tx.query<ListingRow>(
        'SELECT address, reason, listed_by, listed_at FROM address_blacklist WHERE address = $1',
        [change.address],
      );
      if (standing !== undefined) return { listing: listingOf(standing), changed: false };
    }
  });
}

/** Takes an address off the blacklist; null when it was not on it (nothing recorded). */
export async function unblacklistAddress(db: Db, change: ListingChange): Promise<Listing | null> {
  return db.transaction(async (tx) => {
    const [removed] = await tx.query<ListingRow>(
      'DELETE FROM address_blacklist WHERE address = $1 RETURNING address, reason, listed_by, listed_at',
      [change.address],
    );
    if (removed === undefined) return null;
    await recordControlEvent(tx, { action: 'unblacklist', subject: change.address, ...who(change) });
    return listingOf(removed);
  });
}

/** The blacklist with what each address holds, newest listing first. */
export async function blacklistHoldings(q: Queryable): Promise<(Listing & { balance: bigint })[]> {
  const rows = await q.query<ListingRow & { balance: string }>(
    `SELECT b.address, b.reason, b.listed_by, b.listed_at,
            (SELECT coalesce(sum(o.amount), 0)::text FROM token_outputs o
              WHERE o.owner = b.address AND o.spent_by IS NULL AND o.op <> 'burn') AS balance
       FROM address_blacklist b ORDER BY b.listed_at DESC, b.address`,
  );
  return rows.map((r) => ({ ...listingOf(r), balance: BigInt(r.balance) }));
}

function who(change: ListingChange) {
  return { reason: change.reason, actor: change.actor, at: change.at };
}
