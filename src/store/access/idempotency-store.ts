// Idempotency-Key (contract.md "Transfer"): the first answer to a request is kept, per
// API key and Idempotency-Key, with a hash of the request; a retry with the same key and
// the same request gets that answer again, one with the same key and another request is a
// conflict. Entries are purged after a while (purgeIdempotencyKeys).
import { createHash } from 'node:crypto';

import type { Queryable } from '../db/db.js';
import { neverCommittable, neverCommittableParameters } from '../submissions/never-committable.js';

/** The anonymous caller's api_key_id. */
export const ANONYMOUS_API_KEY_ID = '';

/**
 * Most answers one API key keeps at once (issue 29: a key at its rate limit could keep 1.7
 * million a day). A transfer's retry is still safe above it: the same transaction finds its
 * ticket by txid.
 */
export const MAX_KEPT_PER_KEY = 10_000;

/** How many answers `apiKeyId` keeps, counted up to `most`. */
async function keptCount(q: Queryable, apiKeyId: string, most: number): Promise<number> {
  const rows = await q.query<{ n: string | number }>(
    'SELECT count(*) AS n FROM (SELECT 1 FROM idempotency_keys WHERE api_key_id = $1 LIMIT $2) AS kept',
    [apiKeyId, most],
  );
  return Number(rows[0]?.n ?? 0);
}

export interface IdempotencyScope {
  /** The caller's API key id; ANONYMOUS_API_KEY_ID ('') without a key. */
  readonly apiKeyId: string;
  /** The Idempotency-Key header. */
  readonly key: string;
  /** What the request was (requestHashOf): a retry must match it. */
  readonly requestHash: Uint8Array;
}

export interface IdempotentResponse {
  readonly status: number;
  readonly body: string;
  readonly contentType: string;
}

/**
 * A digest of what makes two requests the same: each part length-prefixed, then SHA-256
 * (e.g. method, path with query, body).
 */
export function requestHashOf(parts: readonly (string | Uint8Array)[]): Uint8Array {
  const hash = createHash('sha256');
  for (const part of parts) {
    const bytes = typeof part === 'string' ? Buffer.from(part, 'utf8') : part;
    const length = Buffer.alloc(8);
    length.writeBigUInt64BE(BigInt(bytes.length));
    hash.update(length).update(bytes);
  }
  return new Uint8Array(hash.digest());
}

interface StoredRow {
  request_hash: Uint8Array;
  response_status: number;
  response_body: string;
  content_type: string;
  [column: string]: unknown;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}

/**
 * The answer kept for this key: the response when the request matches, 'conflict' when the
 * key was used with another request, null when the key is new.
 */
export async function recall(
  q: Queryable,
  scope: IdempotencyScope,
): Promise<IdempotentResponse | 'conflict' | null> {
  const rows = await q.query<StoredRow>(
    `SELECT request_hash, response_status, response_body, content_type
       FROM idempotency_keys WHERE api_key_id = $1 AND key = $2`,
    [scope.apiKeyId, scope.key],
  );
  const row = rows[0];
  if (row === undefined) return null;
  if (!sameBytes(row.request_hash, scope.requestHash)) return 'conflict';
  return { status: row.response_status, body: row.response_body, contentType: row.content_type };
}

/**
 * Keeps the answer to a request. When a concurrent request with the same key was kept
 * first, that one stays and is returned (or 'conflict' if it was another request);
 * otherwise the answer given is returned.
 */
export async function remember(
  q: Queryable,
  entry: IdempotencyScope & IdempotentResponse,
  now: Date = new Date(),
  /** Most answers one API key keeps at once; above it a new answer is not kept (answered, not replayable). */
  maxPerKey: number = MAX_KEPT_PER_KEY,
): Promise<IdempotentResponse | 'conflict'> {
  const response: IdempotentResponse = {
    status: entry.status,
    body: entry.body,
    contentType: entry.contentType,
  };
  // Twice at most: the winner of a race may be purged between our insert and our read.
  for (let attempt = 0; attempt < 2; attempt++) {
    const inserted = await q.query(
      `INSERT INTO idempotency_keys (api_key_id, key, request_hash, response_status, response_body, content_type,
                                     created_at)
       SELECT $1, $2, $3, $4, $5, $6, $7
        WHERE (SELECT count(*) FROM (SELECT 1 FROM idempotency_keys WHERE api_key_id = $1 LIMIT $8) AS kept) < $8
       ON CONFLICT (api_key_id, key) DO NOTHING
       RETURNING key`,
      [
        entry.apiKeyId,
        entry.key,
        entry.requestHash,
        entry.status,
        entry.body,
        entry.contentType,
        now,
        maxPerKey,
      ],
    );
    if (inserted.length > 0) return response;
    const stored = await recall(q, entry);
    if (stored !== null) return stored;
    // Nothing under this key and nothing inserted: the API key keeps its most already.
    if (attempt === 0 && (await keptCount(q, entry.apiKeyId, maxPerKey)) >= maxPerKey) return response;
  }
  return response;
}

/**
 * The transaction an earlier attempt of this request built and kept before submitting it
 * (migration 016): its raw bytes, 'conflict' when the key was used with another request, null
 * when none was kept.
 */
export async function recallPrepared(
  q: Queryable,
  scope: IdempotencyScope,
): Promise<Uint8Array | 'conflict' | null> {
  const rows = await q.query<{ request_hash: Uint8Array; raw_tx: Uint8Array }>(
    'SELECT request_hash, raw_tx FROM idempotency_prepared WHERE api_key_id = $1 AND key = $2',
    [scope.apiKeyId, scope.key],
  );
  const row = rows[0];
  if (row === undefined) return null;
  return sameBytes(row.request_hash, scope.requestHash) ? row.raw_tx : 'conflict';
}

/**
 * Keeps the transaction this request built, before it is submitted. When a concurrent attempt
 * kept one first, that one is returned (or 'conflict' if it was another request): submit it.
 */
export async function keepPrepared(
  q: Queryable,
  scope: IdempotencyScope,
  raw: Uint8Array,
  now: Date = new Date(),
): Promise<Uint8Array | 'conflict'> {
  const inserted = await q.query(
    `INSERT INTO idempotency_prepared (api_key_id, key, request_hash, raw_tx, created_at)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (api_key_id, key) DO NOTHING
     RETURNING key`,
    [scope.apiKeyId, scope.key, scope.requestHash, raw, now],
  );
  if (inserted.length > 0) return raw;
  return (await recallPrepared(q, scope)) ?? raw;
}

/**
 * Replaces the transaction kept under this request with `raw` when the kept one is `stale` and can
 * never be committed (neverCommittable: judged from its own bytes), and answers the one kept
 * afterwards: `raw`, a concurrent attempt's replacement, or `stale` itself when it may yet commit
 * (a ticket holds it, or the transfer that took its input is still being broadcast).
 */
export async function replaceStalePrepared(
  q: Queryable,
  scope: IdempotencyScope,
  stale: Uint8Array,
  raw: Uint8Array,
): Promise<Uint8Array | 'conflict' | null> {
  await q.query(
    `UPDATE idempotency_prepared SET raw_tx = $4
      WHERE api_key_id = $1 AND key = $2 AND raw_tx = $3 AND ${neverCommittable(5)}`,
    [scope.apiKeyId, scope.key, stale, raw, ...neverCommittableParameters(stale)],
  );
  return recallPrepared(q, scope);
}

/** Deletes the answers and prepared transactions kept before `olderThan`; returns how many answers. */
export async function purgeIdempotencyKeys(q: Queryable, olderThan: Date): Promise<number> {
  const rows = await q.query<{ n: string }>(
    `WITH gone AS (DELETE FROM idempotency_keys WHERE created_at < $1 RETURNING 1),
          prepared AS (DELETE FROM idempotency_prepared WHERE created_at < $1 RETURNING 1)
     SELECT (SELECT count(*) FROM gone) AS n, (SELECT count(*) FROM prepared) AS p`,
    [olderThan],
  );
  return Number(rows[0]?.n ?? 0);
}
