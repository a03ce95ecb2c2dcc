// Balances served from memory while the change feed has not moved. Every change that can move a
// balance (a submission, a failure) draws a new change-feed score before it commits, so the score
// sequence's last value S is a version stamp of all balances: while S stands still, no such change
// can become visible. Safe with several instances: each reads the shared sequence. On PGlite (one
// process, the only writer) the stamp is the count of local writes, which needs no query.
//
// Writers draw without waiting for each other (docs/adr/0020-scores-drawn-under-shared-markers.md),
// so a change drawn at or below S may still be open when S is read. Balances are therefore kept
// under S only when read in a statement after the feed's edge (store/feed/feed-bound.ts) found
// none open: bound = S. They then hold every change drawn up to S, and a later look that finds S
// unchanged proves them still true.
//
// Round trips a read: while the feed stands still, one look at S (the balances from memory); while
// it moves (a look found S moved, and each read since found it moved again), one statement of the
// balances and S, not kept; the first read after it stops, the edge and then the balances, kept.
//
// Reads run concurrently (read-batches.ts keeps two in flight), and another read may clear the
// cache and stamp it anew while one waits for its look at the stamp. So a read takes the values
// it will answer, and the stamp they belong to, out of the cache before it waits: a match then
// proves those values true at the moment of the look, whatever the cache holds by then. An
// answer is either all from memory (one stamp) or all from one statement, never a mix of two
// moments, and it names every address asked.
import { type Db, hotReads } from '../db/db.js';
import { feedEdge } from '../feed/feed-bound.js';
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
  /** The feed moved at the last read: read the balances and the stamp together without looking first. */
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
  /**
   * The stamp the last read saw: the cache's, or that of the last read while the feed moved. A
   * moving read that finds it again found the feed still since the read before.
   */
  let seen: string | null = null;
  return async (addresses) => {
    if (!moving && version !== null && version === seen) {
      const stamp = version;
      const cached = held(addresses);
      if (cached !== null) {
        if ((await feedStamp(reads)) === stamp) return cached;
        moving = true;
      }
    }
    if (moving) {
      // Not kept: the stamp is read after the balances' snapshot, which may lack a change drawn
      // below it and not yet committed.
      const read = await balancesWithStamp(reads, addresses);
      moving = read.stamp !== seen;
      seen = read.stamp;
      return read.balances;
    }
    // Every writer that drew up to `last` has ended when bound = last: the balances, read in a
    // later statement, hold all their changes.
    const edge = await feedEdge(reads);
    const fresh = await balances(reads, addresses);
    if (edge.bound === edge.last) keep(String(edge.last), fresh);
    else moving = true;
    seen = String(edge.last);
    return fresh;
  };
}
