// Balances served from memory while the change feed has not moved. Every change that can move
// a balance (a submission, a failure) writes a change-feed record with a new, higher score, so
// `max(score)` of the feed is a version stamp of all balances. The stamp is read BEFORE the
// balances: data read after it can only be newer than the stamp says, and a newer stamp
// clears the cache, so a stale balance is never served. Safe with several instances: each
// reads the shared stamp. On PGlite (one process, the only writer) the stamp is the count of
// local writes, which needs no query.
import type { Db } from './db.js';
import { balances } from './wallet-queries.js';

export type BalanceReader = (addresses: readonly string[]) => Promise<Map<string, bigint>>;

/** The stamp: the process-local write count where this process is the only writer, else max(score). */
async function versionOf(db: Db): Promise<string> {
  if (db.localWrites !== undefined) return `local:${db.localWrites()}`;
  const rows = await db.query<{ v: string | null }>('SELECT max(score)::text AS v FROM transactions');
  return rows[0]?.v ?? '0';
}

export function cachedBalanceReader(db: Db, maxEntries = 100_000): BalanceReader {
  let version: string | null = null;
  const cache = new Map<string, bigint>();
  return async (addresses) => {
    const current = await versionOf(db);
    if (current !== version) {
      cache.clear();
      version = current;
    }
    const missing = addresses.filter((a) => !cache.has(a));
    if (missing.length > 0) {
      const fresh = await balances(db, missing);
      if (version === current) {
        if (cache.size + fresh.size > maxEntries) cache.clear();
        for (const [address, amount] of fresh) cache.set(address, amount);
      }
      return new Map(addresses.map((a) => [a, cache.get(a) ?? fresh.get(a) ?? 0n]));
    }
    return new Map(addresses.map((a) => [a, cache.get(a)!]));
  };
}
