// The balance cache under two reads at once, against a database whose answers the test hands
// out one by one, so the interleaving that once answered 0 for a funded wallet runs the same
// way every time: one read finds its addresses cached and waits for its look at the stamp,
// another meanwhile reads a new stamp and clears the cache; the first read's look then matches
// the new stamp. An answer must still be what the store held at one moment of the read, and
// name every address asked (a balance absent from it is a defect, never a 0).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Db, Row, SqlValue } from '../../src/store/db/db.js';
import { KEPT_BALANCES } from '../../src/store/wallets/address-balances.js';
import {
  balanceIn,
  cachedBalanceReader,
  MissingBalanceError,
} from '../../src/store/wallets/balance-cache.js';
import { batchedBalanceReader } from '../../src/store/wallets/read-batches.js';

/** A held statement: the test answers it (from the store's state at that moment) when it likes. */
interface Held {
  readonly sql: string;
  readonly params: readonly SqlValue[] | undefined;
  answer(): void;
}

/**
 * A store of balances and a feed stamp; every statement waits in `held` until answered, and is
 * answered from the state at the moment of answering (as a database answers from the snapshot
 * its statement started in, when it started then).
 */
function controlledDb(options: { local: boolean }) {
  const state = { stamp: 1, writes: 0, writing: false, balances: new Map<string, bigint>() };
  const held: Held[] = [];
  const rowsFor = (sql: string, params: readonly SqlValue[] | undefined): Row[] => {
    // The feed's edge (no writer open here), the stamp alone, the balances with or without it.
    if (sql.includes('pg_locks')) return [{ bound: String(state.stamp), last: String(state.stamp) }];
    const withStamp = sql.includes('pg_sequence_last_value');
    if (withStamp && !sql.includes(KEPT_BALANCES)) return [{ stamp: String(state.stamp) }];
    assert.ok(sql.includes(KEPT_BALANCES), `a statement the store does not answer: ${sql}`);
    const owners = (params?.[0] ?? []) as string[];
    const found = owners.filter((o) => state.balances.has(o));
    const rows = found.map((owner) => ({ owner, total: String(state.balances.get(owner)) }));
    if (!withStamp) return rows;
    const stamped = rows.map((r) => ({ stamp: String(state.stamp), ...r }));
    return stamped.length > 0 ? stamped : [{ stamp: String(state.stamp), owner: null, total: null }];
  };
  const db: Db = {
    dialect: options.local ? 'pglite' : 'postgres',
    ...(options.local && { localWrites: () => (state.writing ? null : state.writes) }),
    query: <R extends Row>(sql: string, params?: readonly SqlValue[]) =>
      new Promise<R[]>((resolve) => {
        held.push({ sql, params, answer: () => resolve(rowsFor(sql, params) as R[]) });
      }),
    transaction: () => Promise.reject(new Error('no transactions here')),
    close: async () => undefined,
  };
  /** A committed write: balances change and the feed moves on. */
  const write = (changes: Record<string, bigint>) => {
    for (const [owner, amount] of Object.entries(changes)) state.balances.set(owner, amount);
    state.stamp++;
    state.writes += 2; // began and ended
  };
  /** Answers the oldest held statement (after letting the reads reach their statements). */
  const answerNext = async () => {
    await settle();
    const next = held.shift();
    assert.ok(next !== undefined, 'a statement is waiting');
    next.answer();
    await settle();
  };
  return { db, state, held, write, answerNext };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('PostgreSQL path: a cached read whose look at the stamp comes after another read restamped the cache', async () => {
  const store = controlledDb({ local: false });
  store.state.balances.set('alice', 1_000_000n);
  const read = cachedBalanceReader(store.db);

  const warm = read(['alice']);
  await store.answerNext(); // the feed's edge: stamp 1, no writer open
  await store.answerNext(); // alice's balance, kept under stamp 1
  assert.deepEqual([...(await warm)], [['alice', 1_000_000n]]);

  const first = read(['alice']); // cached: waits for its look at the stamp
  await settle();
  store.write({ alice: 999_000n, bob: 1_000n });
  const second = read(['bob']); // not cached: the edge (stamp 2), bob's balance, clears the cache
  await settle();
  // The second read's statement is answered first, then the first read's look (stamp 2).
  const [look, both] = [store.held[0]!, store.held[1]!];
  both.answer();
  await settle();
  look.answer();
  await settle();
  while (store.held.length > 0) await store.answerNext();

  assert.deepEqual([...(await second)], [['bob', 1_000n]]);
  const answer = await first;
  assert.ok(answer.has('alice'), 'the answer names alice');
  assert.equal(answer.get('alice'), 999_000n, "alice's balance at the look (stamp 2), not a missing value");
});

test('PGlite path: a read half from memory while a write empties the cache', async () => {
  const store = controlledDb({ local: true });
  store.state.balances.set('alice', 1_000_000n);
  store.state.balances.set('carol', 5n);
  const read = cachedBalanceReader(store.db);

  const warm = read(['alice']);
  await store.answerNext();
  assert.deepEqual([...(await warm)], [['alice', 1_000_000n]]);

  const first = read(['alice', 'carol']); // alice cached, carol read
  await settle();
  store.write({ carol: 6n });
  const second = read(['bob']); // a new stamp: clears the cache, reads bob
  await settle();
  while (store.held.length > 0) await store.answerNext();
  await second;

  const answer = await first;
  assert.equal(answer.get('alice'), 1_000_000n, 'alice holds her tokens, never 0');
  assert.equal(answer.get('carol'), 6n);
});

test('PGlite path: a read while a write is under way neither serves nor keeps a stamp', async () => {
  const store = controlledDb({ local: true });
  store.state.balances.set('alice', 10n);
  const read = cachedBalanceReader(store.db);
  const warm = read(['alice']);
  await store.answerNext();
  await warm;

  // A write begins (its change visible to statements from now on, its count not yet moved).
  store.state.writing = true;
  store.state.balances.set('alice', 4n);
  const during = read(['alice']);
  await settle();
  assert.equal(store.held.length, 1, 'not served from memory while a write is under way');
  await store.answerNext();
  assert.equal((await during).get('alice'), 4n);
  store.state.writing = false;
  store.state.writes += 2;

  store.state.balances.set('alice', 3n); // a change with no write counted: only a test can do this
  const after = read(['alice']);
  await settle();
  assert.equal(store.held.length, 1, 'what was read during the write was not kept');
  await store.answerNext();
  assert.equal((await after).get('alice'), 3n);
});

test('a balance absent from an answer is an error, never 0', async () => {
  assert.throws(() => balanceIn(new Map(), 'alice'), MissingBalanceError);
  assert.equal(balanceIn(new Map([['alice', 0n]]), 'alice'), 0n, 'an address owning nothing reads 0');
  const read = batchedBalanceReader(async (addresses) => new Map(addresses.slice(1).map((a) => [a, 1n])));
  await assert.rejects(read(['alice', 'bob']), MissingBalanceError);
});
