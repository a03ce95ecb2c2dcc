// The operator's API keys: made (the key and its webhook secret are seen in clear only in the
// answer), given a rate limit of their own, revoked. A request never revokes the key that
// authorizes it: without another admin key, the console's sign-in and `admin.key` would be lost.
import {
  type ApiKeyScope,
  type CreatedApiKey,
  createApiKey,
  isLiveApiKey,
  revokeApiKey,
  setApiKeyRateLimit,
} from '../../store/access/api-keys-store.js';
import { holdTransactionLock } from '../../store/db/advisory-lock.js';
import type { ServiceContext } from '../context.js';

type KeyDeps = Pick<ServiceContext, 'db' | 'now'>;

export interface NewApiKey {
  readonly name: string;
  readonly scopes: readonly ApiKeyScope[];
  readonly rateLimit: number | null;
}

/** Advisory lock key held while a key is revoked (unique to this use). */
export const KEY_REVOCATION_LOCK = 7_364_821_012;

export type Revocation =
  | { readonly kind: 'revoked'; readonly revokedAt: Date }
  | { readonly kind: 'in-use' }
  | { readonly kind: 'no-key' }
  /** The asking key was revoked before this revocation's turn came. */
  | { readonly kind: 'asker-revoked' };

/** @throws ApiKeyInputError on a name, scope or rate limit the store refuses. */
export function issueApiKey(ctx: KeyDeps, masterKey: Uint8Array, input: NewApiKey): Promise<CreatedApiKey> {
  return createApiKey(ctx.db, masterKey, input, ctx.now());
}

/** A live key's own rate limit (null: the configured default); false when no live key has that id. */
export function setKeyRateLimit(ctx: KeyDeps, id: string, rateLimit: number | null): Promise<boolean> {
  return setApiKeyRateLimit(ctx.db, id, rateLimit);
}

/**
 * Revokes key `id` on behalf of the key `askedBy` (undefined: no key asked). Revocations take
 * turns, and the asking key must still be live when its turn comes: two admin keys revoking each
 * other at once would otherwise both succeed (different rows: nothing makes them wait) and leave
 * no admin key.
 */
export async function revokeKey(ctx: KeyDeps, id: string, askedBy: string | undefined): Promise<Revocation> {
  if (askedBy === id) return { kind: 'in-use' };
  const revokedAt = ctx.now();
  return ctx.db.transaction(async (tx): Promise<Revocation> => {
    await holdTransactionLock(tx, KEY_REVOCATION_LOCK);
    if (askedBy !== undefined && !(await isLiveApiKey(tx, askedBy))) return { kind: 'asker-revoked' };
    return (await revokeApiKey(tx, id, revokedAt)) ? { kind: 'revoked', revokedAt } : { kind: 'no-key' };
  });
}
