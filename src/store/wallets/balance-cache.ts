// Balances served from memory while the change feed has not moved. Every change that can move
// a balance (a submission, a failure) writes a change-feed record with a new, higher score, so
// `max(score)` of the feed is a version stamp of all balances. A balance is kept with the stamp
// of the snapshot it was read in (stamp and balances come from one statement), and served only
// while a later look at the stamp finds it unchanged, so a stale balance is never served. Safe
// with several instances: each reads the shared stamp. On PGlite (one process, the only writer)
// the stamp is the count of local writes, which needs no query.
//
// One round trip a read either way: while the feed stands still, a look at the stamp (the
// balances come from memory); while it moves (the last look found it moved), the stamp and the
// balances in one statement, without looking first.
//
// Reads run concurrently (read-batches.ts keeps two in flight), and another read may clear the
// cache and stamp it anew while one waits for its look at the stamp. So a read takes the values
// it will answer, and the stamp they belong to, out of the cache before it waits: a match then
// proves those values true at the moment of the look, whatever the cache holds by then. An
// answer is either all from memory (one stamp) or all from one statement, never a mix of two
// moments, and it names every address asked.
import { type Db, hotReads } from '../db/db.js';
import { balances, balancesWithStamp, feedStamp } from './wallet-queries.js';

export type BalanceReader = (addresses: readonly string[]) => Promise<Map<string, bigint>>;

/** A balance absent from an answer that must hold it: a defect, never to be read as 0. */
export class MissingBalanceError extends Error {
  constructor(address: string) {
    super(`no balance was read for ${address}`);
    this.name = 'MissingBalanceError';
  }
}

/** `address`'s balance in `amounts`; throws when it is absent (an address owning nothing reads 0n). */
export function balanceIn(amounts: ReadonlyMap<string, bigint>, address: string): bigint {
  const amount = amounts.get(address);
  if (amount === undefined) throw new MissingBalanceError(address);
  return amount;
}

export function cachedBalanceReader(db: Db, maxEntries = 100_000): BalanceReader {
  let version: string | null = null;
  const cache = new Map<string, bigint>();
  /** The last look found the feed moved: read stamp and balances together without looking first. */
  let moving = false;

  const keep = (stamp: string, fresh: Map<string, bigint>) => {
    if (stamp !== version) {
      cache.clear();
      version = stamp;
    }
    if (cache.size + fresh.size > maxEntries) cache.clear();
    for (const [address, amount] of fresh) cache.set(address, amount);
  };
  /** The cached balances of every address asked, copied now; null when any is not cached. */
  const held = (addresses: readonly string[]): Map<string, bigint> | null => {
    const found = new Map<string, bigint>();
    for (const address of addresses) {
      const amount = cache.get(address);
      if (amount === undefined) return null;
      found.set(address, amount);
    }
    return found;
  };

  if (db.localWrites !== undefined) {
    const localWrites = db.localWrites;
    return async (addresses) => {
      // null: a write is under way, what it changes may be visible or not: no stamp to trust.
      const stamp = localWrites();
      const key = stamp === null ? null : `local:${stamp}`;
      if (key !== null && key !== version) keep(key, new Map());
      const cached = key === null ? null : held(addresses);
      if (cached !== null) return cached;
      // Every address from one statement: one moment, even if a write comes meanwhile.
      const fresh = await balances(db, addresses);
      // Kept only if no write began or ended while reading.
      if (key !== null && localWrites() === stamp) keep(key, fresh);
      return fresh;
    };
  }

  const reads = hotReads(db);
  return async (addresses) => {
    if (!moving && version !== null) {
      const stamp = version;
      const cached = held(addresses);
      if (cached !== null) {
        if ((await feedStamp(reads)) === stamp) return cached;
        moving = true;
      }
    }
    const read = await balancesWithStamp(reads, addresses);
    moving = version !== null && read.stamp !== version;
    keep(read.stamp, read.balances);
    return read.balances;
  };
}
