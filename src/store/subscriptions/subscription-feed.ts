// What the dispatcher reads of the change feed: the records after its cursor, and for each the
// (subscription, address) pairs they concern, with the amounts the address received and spent.
// A feed record is rewritten with a new score whenever it changes (mined, reorged out, failed:
// store/feed/feed-writes.ts), so reading scores above a cursor, up to the feed's bound read
// before (store/feed/feed-bound.ts), sees every change once, in order.
import type { Queryable } from '../db/db.js';

/** Locks the cursor row for the rest of `tx` (one dispatcher at a time); its score. */
export async function lockDispatchCursor(tx: Queryable): Promise<bigint> {
  const rows = await tx.query<{ score: string }>(
    'SELECT score FROM subscription_cursor WHERE id = 1 FOR UPDATE',
  );
  return BigInt(rows[0]!.score);
}

/**
 * Takes the cursor row in share mode for the rest of `tx`: a dispatch round (lockDispatchCursor)
 * waits for `tx` to end, and its reads after that see what `tx` wrote; one under way finishes
 * first.
 */
export async function holdDispatchCursor(tx: Queryable): Promise<void> {
  await tx.query('SELECT score FROM subscription_cursor WHERE id = 1 FOR SHARE');
}

export async function moveDispatchCursor(tx: Queryable, score: bigint): Promise<void> {
  await tx.query('UPDATE subscription_cursor SET score = $1 WHERE id = 1 AND score < $1', [score]);
}

/** The dispatcher's cursor, for a look from outside (tests, the bench). */
export async function dispatchCursor(q: Queryable): Promise<bigint> {
  const rows = await q.query<{ score: string }>('SELECT score FROM subscription_cursor WHERE id = 1');
  return BigInt(rows[0]!.score);
}

/**
 * The scores of the next `limit` feed records after `after`, none above `bound` (feedBound, read
 * in an earlier statement): how far a batch reaches.
 */
export async function feedBatchEnd(
  q: Queryable,
  after: bigint,
  limit: number,
  bound: bigint,
): Promise<{ readonly last: bigint | null; readonly count: number }> {
  const rows = await q.query<{ last: string | null; n: string }>(
    `SELECT max(score)::text AS last, count(*) AS n
       FROM (SELECT score FROM transactions WHERE score > $1 AND score <= $3 ORDER BY score LIMIT $2) b`,
    [after, limit, bound],
  );
  const last = rows[0]?.last ?? null;
  return { last: last === null ? null : BigInt(last), count: Number(rows[0]?.n ?? 0) };
}

/**
 * Holds the subscriptions `ids` (FOR SHARE) for the rest of `tx` and answers whether each is
 * enabled now: an owner's disable or delete committed while the batch was read is seen here,
 * and one asked meanwhile waits for the batch's events (then skips or deletes them with the
 * rest). A subscription deleted meanwhile is absent.
 */
export async function holdSubscriptionStates(
  tx: Queryable,
  ids: readonly string[],
): Promise<ReadonlyMap<string, boolean>> {
  if (ids.length === 0) return new Map();
  const rows = await tx.query<{ id: string; enabled: boolean }>(
    'SELECT id::text AS id, enabled FROM subscriptions WHERE id = ANY($1::uuid[]) ORDER BY id FOR SHARE',
    [ids],
  );
  return new Map(rows.map((r) => [r.id, r.enabled]));
}

export interface SubscribedChange {
  readonly subscriptionId: string;
  readonly events: readonly string[];
  readonly address: string;
  readonly txid: string;
  readonly score: bigint;
  readonly state: 'unconfirmed' | 'mined' | 'failed';
  /** The record was rewritten since it was first written: unconfirmed again means reorged out. */
  readonly rescored: boolean;
  readonly createdAt: Date;
  readonly height: number;
  readonly blockHash: string;
  readonly blockTime: number;
  readonly senders: readonly string[];
  readonly receivers: readonly string[];
  /** Atomic units of the record's outputs owned by the address. */
  readonly received: bigint;
  /** Atomic units of the inputs it spends owned by the address. */
  readonly spent: bigint;
  /** Its ticket's status (null: a record with no ticket, such as the deploy). */
  readonly ticketStatus: string | null;
  /** The payload of the latest event of this (subscription, txid, address), if any. */
  readonly prior: unknown;
}

interface ChangeRow {
  subscription_id: string;
  events: string[];
  address: string;
  txid: string;
  score: string;
  state: 'unconfirmed' | 'mined' | 'failed';
  rescored: boolean;
  created_at: Date;
  height: number;
  blk_hash: string;
  blk_time: string;
  senders: string[];
  receivers: string[];
  received: string;
  spent: string;
  ticket_status: string | null;
  prior: unknown;
  [column: string]: unknown;
}

/**
 * The feed records with a score in (after, upTo] (upTo at most a bound feedBatchEnd kept to),
 * each joined with every subscription that watches one of its addresses (and began watching it
 * before it),
 * in score order.
 */
export async function subscribedChanges(
  q: Queryable,
  after: bigint,
  upTo: bigint,
): Promise<SubscribedChange[]> {
  const rows = await q.query<ChangeRow>(
    `SELECT sa.subscription_id, s.events, sa.address, t.txid, t.score::text AS score, t.state,
            t.updated_at <> t.created_at AS rescored, t.created_at, t.height, t.blk_hash, t.blk_time::text AS blk_time,
            t.senders, t.receivers,
            (SELECT COALESCE(sum(o.amount), 0)::text FROM token_outputs o
              WHERE o.txid = t.txid AND o.owner = sa.address AND o.op <> 'burn') AS received,
            (SELECT COALESCE(sum(o.amount), 0)::text FROM token_outputs o
              WHERE o.spent_by = t.txid AND o.owner = sa.address) AS spent,
            (SELECT k.status FROM tickets k WHERE k.txid = t.txid) AS ticket_status,
            (SELECT e.payload FROM subscription_events e
              WHERE e.subscription_id = sa.subscription_id AND e.txid = t.txid AND e.address = sa.address
              ORDER BY e.id DESC LIMIT 1) AS prior
       FROM transactions t
       JOIN transaction_addresses ta ON ta.txid = t.txid
       JOIN subscription_addresses sa ON sa.address = ta.address AND t.score > sa.start_score
       JOIN subscriptions s ON s.id = sa.subscription_id AND t.score > s.start_score
      WHERE t.score > $1 AND t.score <= $2
      ORDER BY t.score, sa.subscription_id, sa.address`,
    [after, upTo],
  );
  return rows.map((r) => ({
    subscriptionId: r.subscription_id,
    events: r.events,
    address: r.address,
    txid: r.txid,
    score: BigInt(r.score),
    state: r.state,
    rescored: r.rescored,
    createdAt: r.created_at,
    height: r.height,
    blockHash: r.blk_hash,
    blockTime: Number(r.blk_time),
    senders: r.senders,
    receivers: r.receivers,
    received: BigInt(r.received),
    spent: BigInt(r.spent),
    ticketStatus: r.ticket_status,
    prior: r.prior,
  }));
}
