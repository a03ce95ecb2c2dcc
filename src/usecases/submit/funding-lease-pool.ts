// This process's share of the funding pool: outputs leased in bulk ahead of demand
// (store/funding/funding-leases.ts), so that a transfer picks its funding input in memory before it is
// cosigned, and its submission batch reserves it at commit. The share follows demand: it keeps
// about two seconds' worth of recent use (at least a few, at most `maxLeased`), tops up in the
// background when it runs low, and on every keeping tick renews its leases (those it holds free
// and those of outputs taken for transfers not yet claimed), forgets any it lost and gives back
// what it holds beyond twice its need (so that other processes get their share
// when demand moves). A transfer that needs more than any leased output leases one of its size
// at once; one that finds the store's pool dry waits a bounded time (refillWaitMs) for the
// funding keeper's refill, told of it at once in this process (funding-signal.ts), rather than
// being refused. On close, every lease goes back. With an owner of its instance (the same after a
// restart: process/instance-identity.ts) it first gives back what the owner's earlier run held:
// a process killed and restarted reuses its outputs at once instead of waiting for its leases.
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../process/logger.js';
import type { Db } from '../../store/db/db.js';
import type { FundingOutputRow } from '../../store/funding/funding-leases.js';
import {
  leaseFundingOutputs,
  releaseFundingLeases,
  releaseSomeFundingLeases,
  renewFundingLeases,
} from '../../store/funding/funding-leases.js';
import { fundingSignalOf } from '../funding/funding-signal.js';

export interface FundingLeaseSettings {
  /** How long a lease lasts unless renewed. */
  readonly leaseMs: number;
  /** How often leases are renewed and the share fitted to demand. */
  readonly keepEveryMs: number;
  /** Fewest outputs kept leased once there is demand. */
  readonly minLeased: number;
  /** Most outputs kept leased. */
  readonly maxLeased: number;
  /**
   * How long a transfer that finds no output waits for the funding keeper's refill before it
   * is refused, ms (config fundingRefillWaitMs; 0 or absent: not at all).
   */
  readonly refillWaitMs?: number;
  /**
   * The lease owner: its instance's, the same after a restart (the leases an earlier run of it
   * left are given back first). Absent: a random one per pool.
   */
  readonly owner?: string;
}

/** While waiting for a refill, the store is read again this often (a keeper in another process). */
const REFILL_RECHECK_MS = 100;

export interface FundingLeasePool {
  /** The lease owner's name in the database (unique per process). */
  readonly owner: string;
  /** The smallest leased output of at least `minSatoshis`, taken out of the pool; null: none to be had. */
  take(minSatoshis: bigint): Promise<FundingOutputRow | null>;
  /** An output taken but not used (its transfer was refused before commit) comes back. */
  giveBack(output: FundingOutputRow): void;
  /** Outputs leased and not taken. */
  size(): number;
  /** Resolves once the leases an earlier run of its owner left are given back. */
  started(): Promise<void>;
  /** Renews the leases now and forgets those lost (after a submission found its lease gone). */
  resync(): Promise<void>;
  /** Gives every lease back and stops renewing. */
  close(): Promise<void>;
}

export function createFundingLeasePool(deps: {
  readonly db: Db;
  readonly now: () => Date;
  readonly log: Logger;
  readonly settings: FundingLeaseSettings;
}): FundingLeasePool {
  const { settings } = deps;
  const signal = fundingSignalOf(deps.db);
  const owner = settings.owner ?? `lease-${randomUUID()}`;
  // What an earlier run of this owner left goes back before the first lease (which it would
  // otherwise be mistaken for); a failure leaves those leases to lapse by themselves.
  const released =
    settings.owner === undefined
      ? Promise.resolve()
      : releaseFundingLeases(deps.db, owner).catch((err) =>
          deps.log.warn(
            { err },
            "giving back an earlier run's funding leases failed; they expire by themselves",
          ),
        );
  /** Leased outputs not taken, smallest first. */
  let free: FundingOutputRow[] = [];
  /**
   * Outputs taken and not given back: their transfers are on their way to the claim, which ends
   * the lease. Renewed with the free ones until a renewal finds them no longer held.
   */
  const out = new Map<string, FundingOutputRow>();
  let closed = false;
  const taken: number[] = []; // times (ms) of recent takes, for the demand estimate
  const lease = () => {
    const now = deps.now();
    return { owner, now, until: new Date(now.getTime() + settings.leaseMs) };
  };

  const wanted = (): number => {
    const now = Date.now();
    while (taken.length > 0 && taken[0]! < now - 1000) taken.shift();
    return Math.min(settings.maxLeased, Math.max(settings.minLeased, 2 * taken.length));
  };

  const insert = (output: FundingOutputRow) => {
    let at = free.findIndex((o) => o.satoshis >= output.satoshis);
    if (at < 0) at = free.length;
    free.splice(at, 0, output);
  };

  const leaseMore = async (): Promise<void> => {
    await released;
    try {
      const missing = wanted() - free.length;
      if (missing > 0 && !closed) {
        for (const o of await leaseFundingOutputs(deps.db, lease(), missing)) insert(o);
        // The store's pool fell: its keeper looks at it now (if it runs in this process).
        signal.used();
      }
    } catch (err) {
      deps.log.warn({ err }, 'leasing funding outputs failed');
    }
  };
  const topUp = oneAtATime(leaseMore);

  const renewAndFit = async (): Promise<void> => {
    try {
      const { now, until } = lease();
      // Renewed once past half their life, or when they would end within two ticks (a keeping
      // tick close to the lease's length renews every lease, as each tick once did).
      const soon = Math.max(settings.leaseMs / 2, 2 * settings.keepEveryMs);
      // By their keys: what is free and what is taken (a transfer may hold its output longer
      // than the lease it was taken with has left). What comes into `free` while this waits
      // (a give-back, a top-up) was not asked about, and stays.
      const asked = [...free, ...out.values()];
      const sent = new Set(asked.map(keyOf));
      const held = await renewFundingLeases(deps.db, owner, asked, until, new Date(now.getTime() + soon));
      const lost = (o: FundingOutputRow) => sent.has(keyOf(o)) && !held.has(keyOf(o));
      free = free.filter((o) => !lost(o));
      // A taken output no longer held was claimed (or lost): nothing to renew any more.
      for (const [key, o] of out) if (lost(o)) out.delete(key);
      const surplus = free.length - 2 * wanted();
      if (surplus > 0) {
        const back = free.splice(free.length - surplus, surplus);
        await releaseSomeFundingLeases(deps.db, owner, back);
      }
    } catch (err) {
      deps.log.warn({ err }, 'renewing funding leases failed');
    }
  };
  const keep = oneAtATime(renewAndFit);
  const keeper = setInterval(() => {
    if (free.length > 0 || out.size > 0) void keep();
  }, settings.keepEveryMs);
  keeper.unref();

  const pick = (minSatoshis: bigint): FundingOutputRow | null => {
    const at = free.findIndex((o) => o.satoshis >= minSatoshis);
    if (at < 0) return null;
    const [output] = free.splice(at, 1);
    out.set(keyOf(output!), output!);
    if (free.length < wanted() / 2) void topUp();
    return output!;
  };

  /** One output of at least `minSatoshis` leased now and taken at once; null: none to be had. */
  const leaseOne = async (minSatoshis: bigint): Promise<FundingOutputRow | null> => {
    const [one] = await leaseFundingOutputs(deps.db, lease(), 1, minSatoshis);
    if (one === undefined) return null;
    out.set(keyOf(one), one);
    return one;
  };

  /**
   * The pool is dry: the keeper is told (in this process) and the transfer waits, a bounded
   * time, for outputs to come, tried again at each refill heard of and every REFILL_RECHECK_MS.
   */
  const waitForRefill = async (minSatoshis: bigint): Promise<FundingOutputRow | null> => {
    const until = Date.now() + (settings.refillWaitMs ?? 0);
    while (!closed && Date.now() < until) {
      signal.used();
      await signal.nextRefill(Math.min(REFILL_RECHECK_MS, until - Date.now()));
      if (closed) break;
      await topUp();
      const picked = pick(minSatoshis);
      if (picked !== null) return picked;
      const one = await leaseOne(minSatoshis);
      if (one !== null) return one;
    }
    return null;
  };

  return {
    owner,
    async take(minSatoshis) {
      if (closed) return null;
      taken.push(Date.now());
      for (let round = 0; round < 3; round++) {
        const picked = pick(minSatoshis);
        if (picked !== null) return picked;
        const before = free.length;
        await topUp();
        if (free.length === before) break;
      }
      const picked = pick(minSatoshis);
      if (picked !== null) return picked;
      // Nothing leased is large enough: lease one of this size now (after the earlier run's
      // leases went back, which would otherwise give this one back too).
      await released;
      return (await leaseOne(minSatoshis)) ?? (await waitForRefill(minSatoshis));
    },
    giveBack(output) {
      out.delete(keyOf(output));
      if (!closed) insert(output);
    },
    size: () => free.length,
    started: () => released,
    resync: keep,
    async close() {
      closed = true;
      clearInterval(keeper);
      await topUp.running();
      await keep.running();
      free = [];
      out.clear();
      await releaseFundingLeases(deps.db, owner).catch((err) =>
        deps.log.warn({ err }, 'giving funding leases back failed; they expire by themselves'),
      );
    },
  };
}

const keyOf = (o: { readonly txid: string; readonly vout: number }) => `${o.txid}_${o.vout}`;

/**
 * `work` run one at a time: a call while it runs joins that run. The run is forgotten in a
 * `finally` a tick after it settles: clearing it inside `work` would happen before it is stored
 * when `work` finishes without awaiting, and then it would never run again.
 */
function oneAtATime(work: () => Promise<void>): { (): Promise<void>; running(): Promise<void> } {
  let current: Promise<void> | null = null;
  const run = () => {
    current ??= work().finally(() => {
      current = null;
    });
    return current;
  };
  return Object.assign(run, { running: () => current ?? Promise.resolve() });
}
