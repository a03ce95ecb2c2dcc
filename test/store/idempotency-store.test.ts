// Idempotency-Key answers on both adapters: recalled for the same request, a conflict for
// another one, kept per API key, the first of two racing answers wins, and old ones purged.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ANONYMOUS_API_KEY_ID,
  purgeIdempotencyKeys,
  recall,
  remember,
  requestHashOf,
} from '../../src/store/access/idempotency-store.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';

const transfer = (body: string) => requestHashOf(['POST', '/v2/transfer', body]);
const ok = {
  status: 200,
  body: '0197a0b1-0000-7000-8000-000000000001',
  contentType: 'text/plain; charset=utf-8',
};

describe('requestHashOf', () => {
  test('is SHA-256 sized, stable, and tells parts apart', () => {
    const a = requestHashOf(['POST', '/x', '{"a":1}']);
    assert.equal(a.length, 32);
    assert.deepStrictEqual(requestHashOf(['POST', '/x', new TextEncoder().encode('{"a":1}')]), a);
    assert.notDeepStrictEqual(requestHashOf(['POST', '/x', '{"a":2}']), a);
    // Length prefixes: moving a boundary changes the hash.
    assert.notDeepStrictEqual(requestHashOf(['ab', 'c']), requestHashOf(['a', 'bc']));
    assert.notDeepStrictEqual(requestHashOf(['a', '']), requestHashOf(['a']));
  });
});

describeOnEachDb('idempotency keys', (fresh) => {
  test('a new key recalls nothing; once remembered, the same request gets the same answer', async () => {
    const scope = { apiKeyId: 'key-1', key: 'retry-me', requestHash: transfer('{"rawtx":"AA"}') };
    assert.equal(await recall(fresh.db, scope), null);
    assert.deepStrictEqual(await remember(fresh.db, { ...scope, ...ok }), ok);
    assert.deepStrictEqual(await recall(fresh.db, scope), ok);
  });

  test('the same key with another request is a conflict', async () => {
    const scope = { apiKeyId: 'key-1', key: 'reused', requestHash: transfer('{"rawtx":"AA"}') };
    await remember(fresh.db, { ...scope, ...ok });
    assert.equal(await recall(fresh.db, { ...scope, requestHash: transfer('{"rawtx":"BB"}') }), 'conflict');
  });

  test('keys belong to their API key; anonymous callers share the empty id', async () => {
    const requestHash = transfer('{"rawtx":"CC"}');
    const error = { status: 400, body: '{"code":"INPUT_SPENT"}', contentType: 'application/problem+json' };
    await remember(fresh.db, { apiKeyId: 'key-2', key: 'k', requestHash, ...error });
    assert.equal(await recall(fresh.db, { apiKeyId: 'key-3', key: 'k', requestHash }), null);
    assert.equal(await recall(fresh.db, { apiKeyId: ANONYMOUS_API_KEY_ID, key: 'k', requestHash }), null);
    await remember(fresh.db, { apiKeyId: ANONYMOUS_API_KEY_ID, key: 'k', requestHash, ...ok });
    assert.deepStrictEqual(await recall(fresh.db, { apiKeyId: 'key-2', key: 'k', requestHash }), error);
    assert.deepStrictEqual(
      await recall(fresh.db, { apiKeyId: ANONYMOUS_API_KEY_ID, key: 'k', requestHash }),
      ok,
    );
  });

  test('the first answer stays: a later remember returns it, or a conflict', async () => {
    const scope = { apiKeyId: 'key-1', key: 'race', requestHash: transfer('{"rawtx":"DD"}') };
    const first = { status: 200, body: 'first', contentType: 'text/plain' };
    const second = { status: 500, body: 'second', contentType: 'application/problem+json' };
    assert.deepStrictEqual(await remember(fresh.db, { ...scope, ...first }), first);
    assert.deepStrictEqual(await remember(fresh.db, { ...scope, ...second }), first);
    assert.equal(
      await remember(fresh.db, { ...scope, requestHash: transfer('{"rawtx":"EE"}'), ...second }),
      'conflict',
    );
    assert.deepStrictEqual(await recall(fresh.db, scope), first);
  });

  test('concurrent remembers of one key agree on a single answer', async () => {
    const scope = { apiKeyId: 'key-1', key: 'concurrent', requestHash: transfer('{"rawtx":"FF"}') };
    const answers = Array.from({ length: 6 }, (_, i) => ({
      status: 200,
      body: `answer-${i}`,
      contentType: 'text/plain',
    }));
    const results = await Promise.all(answers.map((a) => remember(fresh.db, { ...scope, ...a })));
    const kept = await recall(fresh.db, scope);
    assert.ok(kept !== null && kept !== 'conflict');
    assert.ok(answers.some((a) => a.body === kept.body));
    for (const result of results) assert.deepStrictEqual(result, kept);
  });

  test('one API key keeps at most maxPerKey answers; above it an answer is given but not kept', async () => {
    const requestHash = transfer('{"rawtx":"BB"}');
    const at = new Date('2026-01-01T00:00:00Z');
    for (const key of ['b-1', 'b-2'])
      assert.deepStrictEqual(
        await remember(fresh.db, { apiKeyId: 'bounded', key, requestHash, ...ok }, at, 2),
        ok,
      );
    assert.deepStrictEqual(
      await remember(fresh.db, { apiKeyId: 'bounded', key: 'b-3', requestHash, ...ok }, at, 2),
      ok,
      'answered as given',
    );
    assert.equal(await recall(fresh.db, { apiKeyId: 'bounded', key: 'b-3', requestHash }), null, 'not kept');
    assert.deepStrictEqual(await recall(fresh.db, { apiKeyId: 'bounded', key: 'b-1', requestHash }), ok);
    assert.deepStrictEqual(
      await remember(fresh.db, { apiKeyId: 'other', key: 'b-3', requestHash, ...ok }, at, 2),
      ok,
    );
    assert.deepStrictEqual(
      await recall(fresh.db, { apiKeyId: 'other', key: 'b-3', requestHash }),
      ok,
      'another key keeps its own',
    );
  });

  test('purge deletes the answers older than the cut, and only those', async () => {
    const old = new Date('2025-01-01T00:00:00Z');
    const recent = new Date('2025-01-02T00:00:00Z');
    const requestHash = transfer('{"rawtx":"00"}');
    await remember(fresh.db, { apiKeyId: 'purge', key: 'old-1', requestHash, ...ok }, old);
    await remember(fresh.db, { apiKeyId: 'purge', key: 'old-2', requestHash, ...ok }, old);
    await remember(fresh.db, { apiKeyId: 'purge', key: 'recent', requestHash, ...ok }, recent);
    const cut = new Date('2025-01-01T12:00:00Z');
    assert.equal(await purgeIdempotencyKeys(fresh.db, cut), 2);
    assert.equal(await recall(fresh.db, { apiKeyId: 'purge', key: 'old-1', requestHash }), null);
    assert.deepStrictEqual(await recall(fresh.db, { apiKeyId: 'purge', key: 'recent', requestHash }), ok);
    assert.equal(await purgeIdempotencyKeys(fresh.db, cut), 0);
    // Entries stamped now are newer than any cut in the past.
    assert.deepStrictEqual(
      await recall(fresh.db, { apiKeyId: 'key-1', key: 'retry-me', requestHash: transfer('{"rawtx":"AA"}') }),
      ok,
    );
  });
});
