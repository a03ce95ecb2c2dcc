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
import { type Db, hotReads } from '../db/db.js';
import { balances, balancesWithStamp, feedStamp } from './wallet-queries.js';

export type BalanceReader = (addresses: readonly string[]) => Promise<Map<string, bigint>>;

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
  const fromCache = (addresses: readonly string[]) => new Map(addresses.map((a) => [a, cache.get(a)!]));

  if (db.localWrites !== undefined) {
    const localWrites = db.localWrites;
    return async (addresses) => {
      const stamp = `local:${localWrites()}`;
      if (stamp !== version) keep(stamp, new Map());
      const missing = addresses.filter((a) => !cache.has(a));
      if (missing.length > 0) {
        const fresh = await balances(db, missing);
        // Kept only if no local write came while reading.
        if (`local:${localWrites()}` === stamp) keep(stamp, fresh);
        return new Map(addresses.map((a) => [a, cache.get(a) ?? fresh.get(a) ?? 0n]));
      }
      return fromCache(addresses);
    };
  }

  const reads = hotReads(db);
  return async (addresses) => {
    if (!moving && version !== null && addresses.every((a) => cache.has(a))) {
      if ((await feedStamp(reads)) === version) return fromCache(addresses);
      moving = true;
    }
    const read = await balancesWithStamp(reads, addresses);
    moving = version !== null && read.stamp !== version;
    keep(read.stamp, read.balances);
    return read.balances;
  };
}
