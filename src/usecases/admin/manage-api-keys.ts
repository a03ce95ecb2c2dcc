// The operator's API keys: made (the key and its webhook secret are seen in clear only in the
// answer), given a rate limit of their own, revoked. A request never revokes the key that
// authorizes it: without another admin key, the console's sign-in and `admin.key` would be lost.
import {
  type ApiKeyScope,
  type CreatedApiKey,
  createApiKey,
  revokeApiKey,
  setApiKeyRateLimit,
} from '../../store/access/api-keys-store.js';
import type { ServiceContext } from '../context.js';

type KeyDeps = Pick<ServiceContext, 'db' | 'now'>;

export interface NewApiKey {
  readonly name: string;
  readonly scopes: readonly ApiKeyScope[];
  readonly rateLimit: number | null;
}

export type Revocation =
  | { readonly kind: 'revoked'; readonly revokedAt: Date }
  | { readonly kind: 'in-use' }
  | { readonly kind: 'no-key' };

/** @throws ApiKeyInputError on a name, scope or rate limit the store refuses. */
export function issueApiKey(ctx: KeyDeps, masterKey: Uint8Array, input: NewApiKey): Promise<CreatedApiKey> {
  return createApiKey(ctx.db, masterKey, input, ctx.now());
}

/** A live key's own rate limit (null: the configured default); false when no live key has that id. */
export function setKeyRateLimit(ctx: KeyDeps, id: string, rateLimit: number | null): Promise<boolean> {
  return setApiKeyRateLimit(ctx.db, id, rateLimit);
}

/** Revokes key `id` on behalf of the key `askedBy` (undefined: no key asked). */
export async function revokeKey(ctx: KeyDeps, id: string, askedBy: string | undefined): Promise<Revocation> {
  if (askedBy === id) return { kind: 'in-use' };
  const revokedAt = ctx.now();
  return (await revokeApiKey(ctx.db, id, revokedAt)) ? { kind: 'revoked', revokedAt } : { kind: 'no-key' };
}
