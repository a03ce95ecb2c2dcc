// API keys (contract.md "Authentication"): random, shown once, stored only as SHA-256
// hashes, scoped (read, submit, admin, and the narrow admin scopes of issue 32: mint, burn,
// freeze, seize, pause, keys, policy, audit), revocable, with an optional rate limit of their own
// (requests per window; null: the configured rateLimitPerKey). Each key has a Standard Webhooks signing
// secret (`whsec_...`) for the callbacks of the tickets it submits, stored sealed under the
// master key (crypto/secret-box.ts).
import { randomBytes } from 'node:crypto';

import { sha256 } from '../../crypto/hash.js';
import { isUuid, randomToken, uuidv7 } from '../../crypto/random-id.js';
import { openString, seal } from '../../crypto/secret-box.js';
import type { Queryable } from '../db/db.js';

export const API_KEY_SCOPES = [
  'read',
  'submit',
  'admin',
  'mint',
  'burn',
  'freeze',
  'seize',
  'pause',
  'keys',
  'policy',
  'audit',
] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

export const API_KEY_PREFIX = 'tp_';
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** last_used_at is written at most this often per key, not on every request. */
export const LAST_USED_RESOLUTION_MS = 60_000;

export interface ApiKeyPrincipal {
  readonly id: string;
  readonly name: string;
  readonly scopes: readonly ApiKeyScope[];
  /** Requests per rate-limit window for this key; null or absent: the configured default. */
  readonly rateLimit?: number | null;
}

/** Largest rate limit a key may carry (requests per window). */
export const MAX_KEY_RATE_LIMIT = 1_000_000_000;

export interface CreatedApiKey extends ApiKeyPrincipal {
  /** The key itself: shown once, never stored. */
  readonly key: string;
  /** Its callback signing secret, `whsec_` + base64 of 32 random bytes. */
  readonly webhookSecret: string;
  readonly createdAt: Date;
}

export interface ApiKeyInfo extends ApiKeyPrincipal {
  readonly rateLimit: number | null;
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
  readonly revokedAt: Date | null;
}

export class ApiKeyInputError extends Error {
  override readonly name = 'ApiKeyInputError';
}

export function isApiKeyScope(value: unknown): value is ApiKeyScope {
  return (API_KEY_SCOPES as readonly unknown[]).includes(value);
}

/** The stored form of a key: SHA-256 of its UTF-8 text. */
export function apiKeyHash(rawKey: string): Uint8Array {
  return sha256(Buffer.from(rawKey, 'utf8'));
}

/** Known scopes only, each once, in canonical order. */
function knownScopes(scopes: readonly string[]): ApiKeyScope[] {
  return API_KEY_SCOPES.filter((s) => scopes.includes(s));
}

function checkRateLimit(limit: number | null): void {
  if (limit !== null && !(Number.isSafeInteger(limit) && limit >= 1 && limit <= MAX_KEY_RATE_LIMIT))
    throw new ApiKeyInputError(`a key's rate limit must be an integer from 1 to ${MAX_KEY_RATE_LIMIT}`);
}

/** Makes a key; the returned `key` and `webhookSecret` are the only time they are seen in clear. */
export async function createApiKey(
  q: Queryable,
  masterKey: Uint8Array,
  input: { name: string; scopes: readonly ApiKeyScope[]; rateLimit?: number | null },
  now: Date = new Date(),
): Promise<CreatedApiKey> {
  const rateLimit = input.rateLimit ?? null;
  checkRateLimit(rateLimit);
  const name = input.name.trim();
  if (name === '' || name.length > 200)
    throw new ApiKeyInputError('API key name must be 1 to 200 characters');
  // PostgreSQL refuses NUL in text; other control characters have no place in a name either.
  if (/\p{Cc}/u.test(name)) throw new ApiKeyInputError('API key name must not hold control characters');
  const unknown = input.scopes.filter((s) => !isApiKeyScope(s));
  if (unknown.length > 0) throw new ApiKeyInputError(`unknown API key scope: ${unknown.join(', ')}`);
  const scopes = knownScopes(input.scopes);
  if (scopes.length === 0) throw new ApiKeyInputError('an API key needs at least one scope');
  const id = uuidv7(now.getTime());
  const key = randomToken(API_KEY_PREFIX, 32);
  const webhookSecret = WEBHOOK_SECRET_PREFIX + randomBytes(32).toString('base64');
  await q.query(
    `INSERT INTO api_keys (id, name, key_hash, scopes, webhook_secret_enc, created_at, rate_limit)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [id, name, apiKeyHash(key), scopes, seal(masterKey, webhookSecret), now, rateLimit],
  );
  return { id, key, webhookSecret, name, scopes, rateLimit, createdAt: now };
}

/** Whether a live (unrevoked) key with the admin scope exists. */
export async function hasLiveAdminKey(q: Queryable): Promise<boolean> {
  const rows = await q.query(
    "SELECT 1 FROM api_keys WHERE revoked_at IS NULL AND 'admin' = ANY(scopes) LIMIT 1",
  );
  return rows.length > 0;
}

/** Whether `id` names a key that is not revoked. */
export async function isLiveApiKey(q: Queryable, id: string): Promise<boolean> {
  if (!isUuid(id)) return false;
  const rows = await q.query('SELECT 1 FROM api_keys WHERE id = $1 AND revoked_at IS NULL', [id]);
  return rows.length > 0;
}

/** The scopes of the live key `id`; null when there is no such key or it is revoked. */
export async function liveApiKeyScopes(q: Queryable, id: string): Promise<ApiKeyScope[] | null> {
  if (!isUuid(id)) return null;
  const [row] = await q.query<{ scopes: string[] }>(
    'SELECT scopes FROM api_keys WHERE id = $1 AND revoked_at IS NULL',
    [id],
  );
  return row === undefined ? null : knownScopes(row.scopes);
}

/** Of `ids`, the keys that are live (not revoked). */
export async function liveApiKeyIds(q: Queryable, ids: readonly string[]): Promise<Set<string>> {
  const wanted = ids.filter(isUuid);
  if (wanted.length === 0) return new Set();
  const rows = await q.query<{ id: string }>(
    'SELECT id FROM api_keys WHERE id = ANY($1::text[]) AND revoked_at IS NULL',
    [wanted],
  );
  return new Set(rows.map((r) => r.id));
}

/**
 * Whether key `id` is live, holding its row (FOR SHARE) to the end of the caller's transaction:
 * a revocation waits for that transaction, and one committed before is seen.
 */
export async function holdLiveApiKey(q: Queryable, id: string): Promise<boolean> {
  if (!isUuid(id)) return false;
  const rows = await q.query('SELECT 1 FROM api_keys WHERE id = $1 AND revoked_at IS NULL FOR SHARE', [id]);
  return rows.length > 0;
}

interface ApiKeyRow {
  id: string;
  name: string;
  scopes: string[];
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  rate_limit: number | null;
  [column: string]: unknown;
}

const KEY_COLUMNS = 'id, name, scopes, created_at, last_used_at, revoked_at, rate_limit';

/** Every key, revoked ones included, oldest first; no secrets. */
export async function listApiKeys(q: Queryable): Promise<ApiKeyInfo[]> {
  const rows = await q.query<ApiKeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY created_at, id`);
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    scopes: knownScopes(row.scopes),
    rateLimit: row.rate_limit,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  }));
}

/** Revokes a live key; false when there is no such key or it was already revoked. */
export async function revokeApiKey(q: Queryable, id: string, now: Date = new Date()): Promise<boolean> {
  if (!isUuid(id)) return false;
  const rows = await q.query(
    'UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING id',
    [id, now],
  );
  return rows.length > 0;
}

/**
 * Sets a live key's own rate limit (null: back to the configured default); false when there is
 * no such key or it is revoked. Other processes see it within their verifier's ttlMs.
 */
export async function setApiKeyRateLimit(q: Queryable, id: string, limit: number | null): Promise<boolean> {
  checkRateLimit(limit);
  if (!isUuid(id)) return false;
  const rows = await q.query(
    'UPDATE api_keys SET rate_limit = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING id',
    [id, limit],
  );
  return rows.length > 0;
}

/**
 * The callback signing secret of a key, revoked or not (callbacks of tickets it submitted
 * before its revocation are still signed with it); null when there is no such key.
 */
export async function webhookSecretOf(
  q: Queryable,
  masterKey: Uint8Array,
  apiKeyId: string,
): Promise<string | null> {
  const rows = await q.query<{ webhook_secret_enc: Uint8Array }>(
    'SELECT webhook_secret_enc FROM api_keys WHERE id = $1',
    [apiKeyId],
  );
  const sealed = rows[0]?.webhook_secret_enc;
  return sealed === undefined ? null : openString(masterKey, sealed);
}

async function verifyHash(q: Queryable, hash: Uint8Array, now: Date): Promise<ApiKeyPrincipal | null> {
  const rows = await q.query<ApiKeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE key_hash = $1`, [hash]);
  const row = rows[0];
  if (row === undefined || row.revoked_at !== null) return null;
  const staleBefore = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
  if (row.last_used_at === null || row.last_used_at <= staleBefore) {
    // Conditional, so that several instances seeing the key at once write it once.
    await q.query(
      'UPDATE api_keys SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at <= $3)',
      [row.id, now, staleBefore],
    );
  }
  return { id: row.id, name: row.name, scopes: knownScopes(row.scopes), rateLimit: row.rate_limit };
}

/**
 * The principal of a live key; null when it is unknown or revoked. Records the use in
 * last_used_at, at most once a minute per key.
 */
export async function verifyApiKey(
  q: Queryable,
  rawKey: string,
  now: Date = new Date(),
): Promise<ApiKeyPrincipal | null> {
  return verifyHash(q, apiKeyHash(rawKey), now);
}

export interface StoreApiKeyVerifierOptions {
  /** How long a valid key is trusted without asking the store again (default 10 s). */
  readonly ttlMs?: number;
  /** Most keys remembered at once; the oldest entry goes first (default 10,000). */
  readonly maxEntries?: number;
  /** How long an unknown or revoked key is answered null without asking the store (default 10 s). */
  readonly unknownTtlMs?: number;
  /** Most unknown keys remembered at once; the oldest entry goes first (default 10,000). */
  readonly maxUnknown?: number;
  /** The clock, for tests. */
  readonly now?: () => Date;
}

export interface StoreApiKeyVerifier {
  verify(rawKey: string): Promise<ApiKeyPrincipal | null>;
  /** Forgets every remembered key (after a revocation made by this process, say). */
  forget(): void;
}

/** A Map used as a bounded cache: entries expire, and the oldest goes first when it is full. */
class BoundedCache<V> {
  readonly #entries = new Map<string, { value: V; until: number }>();
  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  get(key: string, nowMs: number): V | undefined {
    const hit = this.#entries.get(key);
    if (hit === undefined) return undefined;
    if (hit.until > nowMs) return hit.value;
    this.#entries.delete(key);
    return undefined;
  }

  set(key: string, value: V, nowMs: number): void {
    if (this.ttlMs <= 0 || this.maxEntries <= 0) return;
    this.#entries.delete(key);
    while (this.#entries.size >= this.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { value, until: nowMs + this.ttlMs });
  }

  clear(): void {
    this.#entries.clear();
  }
}

/**
 * The ApiKeyVerifier of the HTTP layer (src/http/plugins/auth.ts) over the store. A valid key is
 * remembered, by its hash, for `ttlMs` (10 s by default): within that time requests with
 * it do not touch the database, so a revocation made by another process takes effect
 * within `ttlMs`; one made through this process can call forget() to take effect at
 * once. An unknown or revoked key is remembered too, for `unknownTtlMs`, so a flood of
 * requests with the same invented key costs one lookup, not one each (keys are random and
 * shown once, so no key becomes valid after it was tried). Both memories are bounded.
 */
export function storeApiKeyVerifier(
  q: Queryable,
  options: StoreApiKeyVerifierOptions = {},
): StoreApiKeyVerifier {
  const now = options.now ?? (() => new Date());
  const known = new BoundedCache<ApiKeyPrincipal>(options.ttlMs ?? 10_000, options.maxEntries ?? 10_000);
  const unknown = new BoundedCache<true>(options.unknownTtlMs ?? 10_000, options.maxUnknown ?? 10_000);
  // Counts forget() calls: a lookup in flight across one answers its caller but is not
  // remembered, else a key read before a revocation would be cached again after the forget.
  let forgets = 0;
  return {
    async verify(rawKey) {
      const hash = apiKeyHash(rawKey);
      const cacheKey = Buffer.from(hash).toString('base64');
      const at = now();
      const atMs = at.getTime();
      const hit = known.get(cacheKey, atMs);
      if (hit !== undefined) return hit;
      if (unknown.get(cacheKey, atMs) !== undefined) return null;
      const asked = forgets;
      const principal = await verifyHash(q, hash, at);
      if (asked !== forgets) return principal;
      if (principal !== null) known.set(cacheKey, principal, atMs);
      else unknown.set(cacheKey, true, atMs);
      return principal;
    },
    forget() {
      forgets++;
      known.clear();
      unknown.clear();
    },
  };
}
