// API keys on both adapters: created once and stored as hashes, listed without secrets,
// verified, revoked, last use recorded at most once a minute, webhook secrets sealed, and
// the caching verifier the HTTP layer uses.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';

import { Webhook } from 'standardwebhooks';
import { SecretBoxError } from '../../src/crypto/secret-box.js';
import type { ApiKeyVerifier } from '../../src/http/plugins/auth.js';
import {
  ApiKeyInputError,
  apiKeyHash,
  createApiKey,
  LAST_USED_RESOLUTION_MS,
  listApiKeys,
  MAX_KEY_RATE_LIMIT,
  revokeApiKey,
  setApiKeyRateLimit,
  storeApiKeyVerifier,
  verifyApiKey,
  webhookSecretOf,
} from '../../src/store/access/api-keys-store.js';
import type { Queryable, Row, SqlValue } from '../../src/store/db/db.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';

const masterKey = new Uint8Array(randomBytes(32));
const t0 = new Date('2025-06-01T12:00:00.000Z');
const at = (ms: number) => new Date(t0.getTime() + ms);

/** Counts the statements that reach the database. */
function counting(db: Queryable): Queryable & { reads: number; writes: number } {
  const counter = {
    reads: 0,
    writes: 0,
    query<R extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<R[]> {
      if (/^\s*SELECT/i.test(sql)) counter.reads += 1;
      else counter.writes += 1;
      return db.query<R>(sql, params);
    },
  };
  return counter;
}

describeOnEachDb('API keys', (fresh) => {
  test('a new key is tp_ + 32 random bytes, stored only as its SHA-256 hash', async () => {
    const created = await createApiKey(
      fresh.db,
      masterKey,
      { name: ' ops ', scopes: ['submit', 'read'] },
      t0,
    );
    assert.match(created.key, /^tp_[A-Za-z0-9_-]{43}$/);
    assert.equal(Buffer.from(created.key.slice(3), 'base64url').length, 32);
    assert.equal(created.name, 'ops');
    assert.deepStrictEqual(created.scopes, ['read', 'submit']);
    assert.deepStrictEqual(created.createdAt, t0);
    const [row] = await fresh.db.query<{
      key_hash: Uint8Array;
      webhook_secret_enc: Uint8Array;
      created_at: Date;
    }>('SELECT key_hash, webhook_secret_enc, created_at FROM api_keys WHERE id = $1', [created.id]);
    assert.deepStrictEqual(row?.key_hash, new Uint8Array(createHash('sha256').update(created.key).digest()));
    assert.deepStrictEqual(row?.key_hash, apiKeyHash(created.key));
    assert.deepStrictEqual(row?.created_at, t0);
    const stored = Buffer.from(row!.webhook_secret_enc);
    assert.ok(
      !stored.includes(Buffer.from(created.webhookSecret)),
      'the webhook secret is not stored in clear',
    );
    const other = await createApiKey(fresh.db, masterKey, { name: 'other', scopes: ['read'] }, t0);
    assert.notEqual(other.key, created.key);
    assert.notEqual(other.id, created.id);
  });

  test('refuses an empty name, no scope or an unknown scope', async () => {
    await assert.rejects(
      createApiKey(fresh.db, masterKey, { name: '  ', scopes: ['read'] }),
      ApiKeyInputError,
    );
    await assert.rejects(createApiKey(fresh.db, masterKey, { name: 'x', scopes: [] }), ApiKeyInputError);
    await assert.rejects(
      createApiKey(fresh.db, masterKey, { name: 'x', scopes: ['read', 'root' as 'read'] }),
      ApiKeyInputError,
    );
  });

  test('the webhook secret is a Standard Webhooks secret, recovered with the master key only', async () => {
    const created = await createApiKey(fresh.db, masterKey, { name: 'hooks', scopes: ['submit'] }, t0);
    assert.match(created.webhookSecret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(created.webhookSecret.slice(6), 'base64').length, 32);
    assert.equal(await webhookSecretOf(fresh.db, masterKey, created.id), created.webhookSecret);
    assert.equal(await webhookSecretOf(fresh.db, masterKey, 'no-such-key'), null);
    await assert.rejects(
      webhookSecretOf(fresh.db, new Uint8Array(randomBytes(32)), created.id),
      SecretBoxError,
    );
    // The standardwebhooks library accepts it and checks what it signs.
    const hook = new Webhook(created.webhookSecret);
    const payload = '{"id":"x"}';
    const sentAt = new Date();
    const headers = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
    };
    const signature = hook.sign('msg_1', sentAt, payload);
    assert.deepStrictEqual(hook.verify(payload, { ...headers, 'webhook-signature': signature }), {
      id: 'x',
    });
  });

  test('verifyApiKey: the principal of a live key, null for unknown and revoked ones', async () => {
    const created = await createApiKey(fresh.db, masterKey, { name: 'reader', scopes: ['read'] }, t0);
    assert.deepStrictEqual(await verifyApiKey(fresh.db, created.key, at(1)), {
      id: created.id,
      name: 'reader',
      scopes: ['read'],
      rateLimit: null,
    });
    assert.equal(await verifyApiKey(fresh.db, `${created.key}x`, at(1)), null);
    assert.equal(await verifyApiKey(fresh.db, '', at(1)), null);
    assert.equal(await revokeApiKey(fresh.db, created.id, at(2)), true);
    assert.equal(await revokeApiKey(fresh.db, created.id, at(3)), false, 'already revoked');
    assert.equal(await revokeApiKey(fresh.db, 'no-such-key', at(3)), false);
    assert.equal(await verifyApiKey(fresh.db, created.key, at(4)), null);
    assert.equal(
      await webhookSecretOf(fresh.db, masterKey, created.id),
      created.webhookSecret,
      'kept after revocation',
    );
  });

  test('verifyApiKey records the last use at most once a minute', async () => {
    const created = await createApiKey(fresh.db, masterKey, { name: 'busy', scopes: ['read'] }, t0);
    const lastUsed = async () =>
      (await listApiKeys(fresh.db)).find((k) => k.id === created.id)?.lastUsedAt ?? null;
    assert.equal(await lastUsed(), null);
    const q = counting(fresh.db);
    await verifyApiKey(q, created.key, at(1_000));
    assert.deepStrictEqual(await lastUsed(), at(1_000));
    assert.equal(q.writes, 1);
    for (const ms of [1_001, 30_000, LAST_USED_RESOLUTION_MS + 999])
      await verifyApiKey(q, created.key, at(ms));
    assert.equal(q.writes, 1, 'no write within the minute');
    assert.deepStrictEqual(await lastUsed(), at(1_000));
    await verifyApiKey(q, created.key, at(LAST_USED_RESOLUTION_MS + 1_000));
    assert.equal(q.writes, 2);
    assert.deepStrictEqual(await lastUsed(), at(LAST_USED_RESOLUTION_MS + 1_000));
  });

  test('listApiKeys: every key, oldest first, without secrets', async () => {
    const list = await listApiKeys(fresh.db);
    assert.ok(list.length >= 5);
    for (const info of list) {
      assert.deepStrictEqual(Object.keys(info).sort(), [
        'createdAt',
        'id',
        'lastUsedAt',
        'name',
        'rateLimit',
        'revokedAt',
        'scopes',
      ]);
    }
    const revoked = list.filter((k) => k.revokedAt !== null);
    assert.equal(revoked.length, 1);
    assert.deepStrictEqual(revoked[0]?.revokedAt, at(2));
    const times = list.map((k) => k.createdAt.getTime());
    assert.deepStrictEqual(
      times,
      [...times].sort((a, b) => a - b),
    );
  });

  test('a key’s own rate limit: set at creation, changed, cleared; refused out of range or revoked', async () => {
    const created = await createApiKey(
      fresh.db,
      masterKey,
      { name: 'limited', scopes: ['read'], rateLimit: 4 },
      t0,
    );
    assert.equal(created.rateLimit, 4);
    assert.equal((await verifyApiKey(fresh.db, created.key, at(1)))?.rateLimit, 4);
    assert.equal(await setApiKeyRateLimit(fresh.db, created.id, 40), true);
    assert.equal((await verifyApiKey(fresh.db, created.key, at(2)))?.rateLimit, 40);
    assert.equal((await listApiKeys(fresh.db)).find((k) => k.id === created.id)?.rateLimit, 40);
    assert.equal(await setApiKeyRateLimit(fresh.db, created.id, null), true);
    assert.equal((await verifyApiKey(fresh.db, created.key, at(3)))?.rateLimit, null);
    for (const bad of [0, -1, 1.5, MAX_KEY_RATE_LIMIT + 1]) {
      await assert.rejects(setApiKeyRateLimit(fresh.db, created.id, bad), ApiKeyInputError);
      await assert.rejects(
        createApiKey(fresh.db, masterKey, { name: 'bad', scopes: ['read'], rateLimit: bad }),
        ApiKeyInputError,
      );
    }
    assert.equal(await setApiKeyRateLimit(fresh.db, 'no-such-key', 5), false);
    assert.equal(await revokeApiKey(fresh.db, created.id, at(4)), true);
    assert.equal(await setApiKeyRateLimit(fresh.db, created.id, 5), false, 'revoked');
  });

  describe('storeApiKeyVerifier', () => {
    test('fits the HTTP layer’s ApiKeyVerifier', async () => {
      // The shape of ApiKeyVerifier in src/http/plugins/auth.ts.
      const verifier: ApiKeyVerifier = storeApiKeyVerifier(fresh.db);
      const created = await createApiKey(fresh.db, masterKey, { name: 'typed', scopes: ['admin'] });
      assert.deepStrictEqual(await verifier.verify(created.key), {
        id: created.id,
        name: 'typed',
        scopes: ['admin'],
        rateLimit: null,
      });
    });

    test('remembers a valid key for its TTL, then asks the store again', async () => {
      let clock = t0.getTime();
      const q = counting(fresh.db);
      const verifier = storeApiKeyVerifier(q, { ttlMs: 10_000, now: () => new Date(clock) });
      const created = await createApiKey(fresh.db, masterKey, { name: 'cached', scopes: ['read'] });
      const principal = { id: created.id, name: 'cached', scopes: ['read'], rateLimit: null };
      assert.deepStrictEqual(await verifier.verify(created.key), principal);
      const readsAfterFirst = q.reads;
      clock += 9_999;
      assert.deepStrictEqual(await verifier.verify(created.key), principal);
      assert.equal(q.reads, readsAfterFirst, 'served from memory');
      await revokeApiKey(fresh.db, created.id);
      assert.deepStrictEqual(await verifier.verify(created.key), principal, 'revocation not seen yet');
      clock += 1;
      assert.equal(await verifier.verify(created.key), null, 'seen once the TTL is over');
      assert.equal(q.reads, readsAfterFirst + 1);
    });

    test('forget() makes a revocation take effect at once', async () => {
      const verifier = storeApiKeyVerifier(fresh.db, { ttlMs: 60_000 });
      const created = await createApiKey(fresh.db, masterKey, { name: 'forgotten', scopes: ['read'] });
      assert.notEqual(await verifier.verify(created.key), null);
      await revokeApiKey(fresh.db, created.id);
      verifier.forget();
      assert.equal(await verifier.verify(created.key), null);
    });

    test('a lookup in flight across forget() is answered but not remembered', async () => {
      const created = await createApiKey(fresh.db, masterKey, { name: 'in flight', scopes: ['read'] });
      // The key is read before the revocation commits, and answered after the forget().
      let release!: () => void;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let held = true;
      const slow: Queryable = {
        query: async <T extends Row = Row>(sql: string, params?: readonly SqlValue[]) => {
          const rows = await fresh.db.query<T>(sql, params);
          if (held && /FROM api_keys/.test(sql)) {
            held = false;
            await released;
          }
          return rows;
        },
      };
      const verifier = storeApiKeyVerifier(slow, { ttlMs: 60_000 });
      const inFlight = verifier.verify(created.key);
      await revokeApiKey(fresh.db, created.id);
      verifier.forget();
      release();
      assert.notEqual(await inFlight, null, 'read before the revocation');
      assert.equal(await verifier.verify(created.key), null, 'not remembered: the revocation is seen');
    });

    test('remembers an unknown key briefly: a flood of it costs one lookup', async () => {
      let clock = t0.getTime();
      const q = counting(fresh.db);
      const verifier = storeApiKeyVerifier(q, { unknownTtlMs: 10_000, now: () => new Date(clock) });
      for (let i = 0; i < 50; i++) assert.equal(await verifier.verify('tp_unknown'), null);
      assert.equal(q.reads, 1);
      clock += 10_000;
      assert.equal(await verifier.verify('tp_unknown'), null);
      assert.equal(q.reads, 2, 'asked again once the time is over');
    });

    test('remembers a revoked key as unknown too', async () => {
      const q = counting(fresh.db);
      const verifier = storeApiKeyVerifier(q, { now: () => t0 });
      const created = await createApiKey(fresh.db, masterKey, { name: 'gone', scopes: ['read'] });
      await revokeApiKey(fresh.db, created.id);
      assert.equal(await verifier.verify(created.key), null);
      assert.equal(await verifier.verify(created.key), null);
      assert.equal(q.reads, 1);
    });

    test('holds at most maxUnknown unknown keys, the oldest let go first', async () => {
      const q = counting(fresh.db);
      const verifier = storeApiKeyVerifier(q, { maxUnknown: 2, now: () => t0 });
      for (const key of ['tp_u1', 'tp_u2', 'tp_u3']) await verifier.verify(key);
      assert.equal(q.reads, 3);
      await verifier.verify('tp_u3');
      await verifier.verify('tp_u2');
      assert.equal(q.reads, 3, 'the two newest are remembered');
      await verifier.verify('tp_u1');
      assert.equal(q.reads, 4, 'the oldest was let go');
    });

    test('holds at most maxEntries keys', async () => {
      const q = counting(fresh.db);
      const verifier = storeApiKeyVerifier(q, { maxEntries: 2, now: () => t0 });
      const keys = [];
      for (const name of ['k1', 'k2', 'k3']) {
        keys.push((await createApiKey(fresh.db, masterKey, { name, scopes: ['read'] })).key);
      }
      for (const key of keys) await verifier.verify(key);
      const reads = q.reads;
      await verifier.verify(keys[2]!);
      await verifier.verify(keys[1]!);
      assert.equal(q.reads, reads, 'the two newest are remembered');
      await verifier.verify(keys[0]!);
      assert.equal(q.reads, reads + 1, 'the oldest was let go');
    });
  });
});
