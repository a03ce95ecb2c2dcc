// Address subscriptions (issue 31, part 1): each belongs to the API key that registered it and
// holds a URL, the event types it wants, its sealed signing secret and a bounded list of
// addresses (subscription_addresses, indexed by address for the dispatcher's match). A list
// change that would pass the bound is refused whole: the change and the count are one
// transaction, the subscription's row locked so two changes at once cannot both pass.
import type { Queryable } from '../db/db.js';
import { feedBound } from '../feed/feed-bound.js';
import { holdDispatchCursor } from './subscription-feed.js';

export interface SubscriptionRow {
  readonly id: string;
  readonly apiKeyId: string;
  readonly url: string;
  readonly events: readonly string[];
  readonly description: string;
  readonly secretEnc: Uint8Array;
  readonly enabled: boolean;
  readonly disabledAt: Date | null;
  readonly disabledReason: string | null;
  readonly failingSince: Date | null;
  readonly startScore: bigint;
  readonly addressCount: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

interface Row {
  id: string;
  api_key_id: string;
  url: string;
  events: string[];
  description: string;
  secret_enc: Uint8Array;
  enabled: boolean;
  disabled_at: Date | null;
  disabled_reason: string | null;
  failing_since: Date | null;
  start_score: string;
  address_count: string;
  created_at: Date;
  updated_at: Date;
  [column: string]: unknown;
}

const COLUMNS = `s.id, s.api_key_id, s.url, s.events, s.description, s.secret_enc, s.enabled, s.disabled_at,
  s.disabled_reason, s.failing_since, s.start_score, s.created_at, s.updated_at,
  (SELECT count(*) FROM subscription_addresses a WHERE a.subscription_id = s.id) AS address_count`;

function toSubscription(row: Row): SubscriptionRow {
  return {
    id: row.id,
    apiKeyId: row.api_key_id,
    url: row.url,
    events: row.events,
    description: row.description,
    secretEnc: row.secret_enc,
    enabled: row.enabled,
    disabledAt: row.disabled_at,
    disabledReason: row.disabled_reason,
    failingSince: row.failing_since,
    startScore: BigInt(row.start_score),
    addressCount: Number(row.address_count),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export interface NewSubscription {
  readonly id: string;
  readonly apiKeyId: string;
  readonly url: string;
  readonly events: readonly string[];
  readonly description: string;
  readonly secretEnc: Uint8Array;
  readonly now: Date;
}

/**
 * Writes a subscription; its events start after the feed's bound (store/feed/feed-bound.ts), read
 * in a statement before the insert: every record at or below it had committed by then, and one
 * still in flight, whatever its score, is above it and so is sent. The dispatcher's cursor is held
 * first, until `tx` ends: a dispatch round that read past a record committed meanwhile, before
 * the subscription was visible, would never make it an event. Answers that start.
 */
export async function insertSubscription(tx: Queryable, s: NewSubscription): Promise<bigint> {
  await holdDispatchCursor(tx);
  const start = await feedBound(tx);
  await tx.query(
    `INSERT INTO subscriptions (id, api_key_id, url, events, description, secret_enc, start_score, created_at, updated_at)
     VALUES ($1, $2, $3, $4::text[], $5, $6, $8, $7, $7)`,
    [s.id, s.apiKeyId, s.url, [...s.events], s.description, s.secretEnc, s.now, start],
  );
  return start;
}

/** How many subscriptions a key has. */
export async function subscriptionCount(q: Queryable, apiKeyId: string): Promise<number> {
  const rows = await q.query<{ n: string }>('SELECT count(*) AS n FROM subscriptions WHERE api_key_id = $1', [
    apiKeyId,
  ]);
  return Number(rows[0]?.n ?? 0);
}

export async function subscriptionById(q: Queryable, id: string): Promise<SubscriptionRow | null> {
  const rows = await q.query<Row>(`SELECT ${COLUMNS} FROM subscriptions s WHERE s.id = $1`, [id]);
  return rows[0] === undefined ? null : toSubscription(rows[0]);
}

/** Locks a subscription's row for the rest of `tx`; null when there is none. */
export async function lockSubscription(tx: Queryable, id: string): Promise<SubscriptionRow | null> {
  const rows = await tx.query<Row>(`SELECT ${COLUMNS} FROM subscriptions s WHERE s.id = $1 FOR UPDATE`, [id]);
  return rows[0] === undefined ? null : toSubscription(rows[0]);
}

/** Holds key `apiKeyId`'s subscriptions for the rest of the transaction: its registrations take turns. */
export async function holdKeySubscriptions(tx: Queryable, apiKeyId: string): Promise<void> {
  await tx.query("SELECT pg_advisory_xact_lock(hashtext('subscriptions_of_key'), hashtext($1))", [apiKeyId]);
}

/**
 * A page of subscriptions in the order they were made (their UUIDv7 ids), those after `after`:
 * one key's, or every key's when `apiKeyId` is null (an admin key's list).
 */
export async function listSubscriptions(
  q: Queryable,
  page: { readonly apiKeyId: string | null; readonly after: string | null; readonly limit: number },
): Promise<SubscriptionRow[]> {
  const rows = await q.query<Row>(
    `SELECT ${COLUMNS} FROM subscriptions s
      WHERE ($1::text IS NULL OR s.api_key_id = $1) AND ($2::uuid IS NULL OR s.id > $2)
      ORDER BY s.id LIMIT $3`,
    [page.apiKeyId, page.after, page.limit],
  );
  return rows.map(toSubscription);
}

export interface SubscriptionChange {
  readonly url?: string;
  readonly events?: readonly string[];
  readonly description?: string;
  /** true: enabled again (the record of why it was disabled is cleared); false: disabled by its owner. */
  readonly enabled?: boolean;
  readonly now: Date;
}

export async function updateSubscription(
  tx: Queryable,
  id: string,
  change: SubscriptionChange,
): Promise<void> {
  if (change.enabled === true) await skipLeftOver(tx, id, change.now);
  await tx.query(
    `UPDATE subscriptions SET
       url = COALESCE($2, url),
       events = COALESCE($3::text[], events),
       description = COALESCE($4, description),
       enabled = COALESCE($5, enabled),
       disabled_at = CASE WHEN $5 IS NULL THEN disabled_at WHEN $5 THEN NULL ELSE $6 END,
       disabled_reason = CASE WHEN $5 IS NULL THEN disabled_reason WHEN $5 THEN NULL
                              ELSE 'disabled by its owner' END,
       -- Enabled again, or sent to another URL: the run of failures (which disables it once long
       -- enough) starts over; the old URL's failures say nothing of the new one.
       failing_since = CASE WHEN $5 OR ($2::text IS NOT NULL AND $2 <> url) THEN NULL ELSE failing_since END,
       updated_at = $6
     WHERE id = $1`,
    [
      id,
      change.url ?? null,
      change.events === undefined ? null : [...change.events],
      change.description ?? null,
      change.enabled ?? null,
      change.now,
    ],
  );
  if (change.enabled === false)
    await skipPending(tx, id, 'not sent: the subscription was disabled', change.now);
}

/**
 * Pending events of a disabled subscription are not sent (a redelivery sends one). An event a
 * deliverer holds under a live lease is left to it: one being sent has its attempt recorded as it
 * ended, one waiting in hand is skipped there, at the look just before its send
 * (subscription-deliverer.ts).
 */
async function skipPending(tx: Queryable, id: string, why: string, now: Date): Promise<void> {
  await tx.query(
    `UPDATE subscription_events SET state = 'skipped', last_error = $2, lease_owner = NULL, lease_until = NULL
      WHERE subscription_id = $1 AND state = 'pending' AND (lease_until IS NULL OR lease_until < $3)`,
    [id, why, now],
  );
}

/**
 * Enabled again: the events a deliverer held when the subscription was disabled, and whose lease
 * ran out since (the deliverer stopped before it sent or skipped them), are skipped as the
 * disable skipped the others; a test event asked for while it was disabled (never leased) is
 * sent. Only a subscription disabled until now: an enabled one's such events are retried.
 */
async function skipLeftOver(tx: Queryable, id: string, now: Date): Promise<void> {
  await tx.query(
    `UPDATE subscription_events e SET state = 'skipped', last_error = 'not sent: the subscription was disabled',
            lease_owner = NULL, lease_until = NULL
       FROM subscriptions s
      WHERE s.id = $1 AND NOT s.enabled AND e.subscription_id = $1 AND e.state = 'pending' AND e.lease_until < $2`,
    [id, now],
  );
}

export async function deleteSubscription(tx: Queryable, id: string): Promise<void> {
  await tx.query('DELETE FROM subscriptions WHERE id = $1', [id]);
}

/**
 * Adds, removes or replaces addresses; answers the count after the change (the caller checks the
 * bound). An address added starts where a registration starts (insertSubscription): after the
 * feed's bound, read here under the dispatcher's cursor the caller holds, or `start` when given
 * (a registration's own). One kept keeps its start.
 */
export async function changeAddresses(
  tx: Queryable,
  id: string,
  change: {
    readonly add?: readonly string[];
    readonly remove?: readonly string[];
    readonly replace?: readonly string[];
  },
  start?: bigint,
): Promise<number> {
  const adds = change.replace !== undefined || change.add !== undefined;
  const from = start ?? (adds ? await feedBound(tx) : 0n);
  if (change.replace !== undefined) {
    await tx.query(
      `DELETE FROM subscription_addresses WHERE subscription_id = $1 AND NOT (address = ANY($2::text[]))`,
      [id, [...change.replace]],
    );
    await insertAddresses(tx, id, change.replace, from);
  }
  if (change.remove !== undefined && change.remove.length > 0)
    await tx.query(
      'DELETE FROM subscription_addresses WHERE subscription_id = $1 AND address = ANY($2::text[])',
      [id, [...change.remove]],
    );
  if (change.add !== undefined) await insertAddresses(tx, id, change.add, from);
  const rows = await tx.query<{ n: string }>(
    'SELECT count(*) AS n FROM subscription_addresses WHERE subscription_id = $1',
    [id],
  );
  return Number(rows[0]?.n ?? 0);
}

async function insertAddresses(
  tx: Queryable,
  id: string,
  addresses: readonly string[],
  start: bigint,
): Promise<void> {
  if (addresses.length === 0) return;
  await tx.query(
    `INSERT INTO subscription_addresses (subscription_id, address, start_score)
     SELECT $1, a, $3 FROM unnest($2::text[]) AS a ON CONFLICT DO NOTHING`,
    [id, [...new Set(addresses)], start],
  );
}

/** A subscription's addresses, in address order. */
export async function addressesOfSubscription(q: Queryable, id: string): Promise<string[]> {
  const rows = await q.query<{ address: string }>(
    'SELECT address FROM subscription_addresses WHERE subscription_id = $1 ORDER BY address',
    [id],
  );
  return rows.map((r) => r.address);
}
