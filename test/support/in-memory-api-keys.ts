// An ApiKeyVerifier over a fixed list, for tests: keys are held only as
// SHA-256 hashes, like the store-backed verifier will hold them.
import { createHash } from 'node:crypto';
import type { ApiKeyPrincipal, ApiKeyVerifier, Scope } from '../../src/http/plugins/auth.js';

export interface InMemoryApiKey {
  readonly key: string;
  readonly id: string;
  readonly name?: string;
  readonly scopes: readonly Scope[];
  readonly revoked?: boolean;
  readonly rateLimit?: number;
}

function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export class InMemoryApiKeyVerifier implements ApiKeyVerifier {
  readonly #byHash = new Map<string, { principal: ApiKeyPrincipal; revoked: boolean }>();

  constructor(keys: readonly InMemoryApiKey[] = []) {
    for (const k of keys) this.add(k);
  }

  add(k: InMemoryApiKey): void {
    const principal: ApiKeyPrincipal = Object.freeze({
      id: k.id,
      name: k.name ?? k.id,
      scopes: Object.freeze([...k.scopes]),
      ...(k.rateLimit !== undefined && { rateLimit: k.rateLimit }),
    });
    this.#byHash.set(hashKey(k.key), { principal, revoked: k.revoked ?? false });
  }

  /** Revokes every key of this id; returns how many were revoked. */
  revoke(id: string): number {
    let count = 0;
    for (const entry of this.#byHash.values()) {
      if (entry.principal.id === id && !entry.revoked) {
        entry.revoked = true;
        count += 1;
      }
    }
    return count;
  }

  async verify(rawKey: string): Promise<ApiKeyPrincipal | null> {
    const entry = this.#byHash.get(hashKey(rawKey));
    return entry === undefined || entry.revoked ? null : entry.principal;
  }
}
