// Reads while transfers commit, on each database: balances (batched, through the balance
// cache, as the routes read them), pages of unspent outputs (batched) and the change feed of
// some addresses, run concurrently with a writer committing transfers among a few wallets.
// Every answer must be what the store held at some moment between the read's start and its
// end: the state after k transfers, for some k from the transfers committed when the read
// began to those begun when it ended. An answer that never existed (a 0 for a funded wallet, a
// balance missing, half of two moments) fails the property.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { syncForAddresses } from '../../src/store/feed/feed-queries.js';
import { cachedBalanceReader } from '../../src/store/wallets/balance-cache.js';
import { batchedBalanceReader, batchedUnspentReader } from '../../src/store/wallets/read-batches.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { seedTransaction } from '../support/seed-store.js';

interface Coin {
  readonly txid: string;
  readonly vout: number;
  readonly owner: string;
  readonly amount: bigint;
  readonly score: bigint;
}
interface FeedEntry {
  readonly txid: string;
  readonly addresses: readonly string[];
}
/** The store after k transfers: its unspent coins and its feed, in score order. */
interface State {
  readonly coins: readonly Coin[];
  readonly feed: readonly FeedEntry[];
}

type Read =
  | { readonly kind: 'balance'; readonly wallets: readonly number[] }
  | { readonly kind: 'utxos'; readonly wallets: readonly number[] }
  | { readonly kind: 'feed'; readonly wallets: readonly number[] };

const WALLETS = 4;
const walletSet = fc.uniqueArray(fc.integer({ min: 0, max: WALLETS - 1 }), {
  minLength: 1,
  maxLength: WALLETS,
});
const readArb: fc.Arbitrary<Read> = fc.record({
  kind: fc.constantFrom('balance' as const, 'utxos' as const, 'feed' as const),
  wallets: walletSet,
});
const scenarioArb = fc.record({
  transfers: fc.array(
    fc.record({
      from: fc.integer({ min: 0, max: WALLETS - 1 }),
      to: fc.integer({ min: 0, max: WALLETS - 1 }),
      /** Per mille of the sender's largest coin sent. */
      share: fc.integer({ min: 1, max: 999 }),
    }),
    { minLength: 3, maxLength: 12 },
  ),
  readers: fc.array(fc.array(readArb, { minLength: 2, maxLength: 10 }), { minLength: 2, maxLength: 4 }),
  /** Turns of the event loop a reader lets pass between reads. */
  pauses: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 8 }),
});

const byFeedOrder = (a: Coin, b: Coin) =>
  a.score !== b.score
    ? a.score < b.score
      ? -1
      : 1
    : a.txid !== b.txid
      ? a.txid < b.txid
        ? -1
        : 1
      : a.vout - b.vout;
const turn = () => new Promise((resolve) => setImmediate(resolve));
const RUNS = Number(process.env.READS_PROPERTY_RUNS ?? 40);

describeOnEachDb('reads under concurrent transfers', (fresh) => {
  test('every answer is the store at one moment of the read', { timeout: 60_000 }, async () => {
    // One set of readers for every run, as one process keeps them: the cache lives on.
    const balances = batchedBalanceReader(cachedBalanceReader(fresh.db));
    const utxos = batchedUnspentReader(fresh.db);
    let run = 0;

    await fc.assert(
      fc.asyncProperty(scenarioArb, async (scenario) => {
        const names = Array.from({ length: WALLETS }, (_, i) => `run${run}-${fresh.target}-wallet${i}`);
        run++;
        const mint = await seedTransaction(fresh.db, {
          senders: [],
          outputs: names.map((owner) => ({ owner, amount: 1_000_000n })),
        });
        const states: State[] = [
          {
            coins: names.map((owner, vout) => ({
              txid: mint.txid,
              vout,
              owner,
              amount: 1_000_000n,
              score: mint.score,
            })),
            feed: [{ txid: mint.txid, addresses: names }],
          },
        ];
        let committed = 0; // transfers committed: states[committed] is the store now
        let begun = 0; // transfers begun: the store may already be states[begun]
        let writing = true;
        const failures: string[] = [];

        const writer = (async () => {
          try {
            for (const t of scenario.transfers) {
              const now = states[committed]!;
              const [from, to] = [names[t.from]!, names[t.to]!];
              const coin = now.coins
                .filter((c) => c.owner === from)
                .sort((a, b) => (a.amount < b.amount ? 1 : -1))[0];
              if (coin === undefined || coin.amount < 2n) continue;
              const sent = (coin.amount * BigInt(t.share)) / 1000n || 1n;
              begun++;
              const done = await seedTransaction(fresh.db, {
                spends: [`${coin.txid}_${coin.vout}`],
                outputs: [
                  { owner: to, amount: sent },
                  { owner: from, amount: coin.amount - sent },
                ],
              });
              const made = [
                { txid: done.txid, vout: 0, owner: to, amount: sent, score: done.score },
                { txid: done.txid, vout: 1, owner: from, amount: coin.amount - sent, score: done.score },
              ];
              states.push({
                coins: [...now.coins.filter((c) => c !== coin), ...made],
                feed: [...now.feed, { txid: done.txid, addresses: [...new Set([from, to])] }],
              });
              committed++;
            }
          } finally {
            writing = false;
          }
        })();

        /** Whether `matches` holds for some state the store was in during the read. */
        const checked = async <T>(
          what: string,
          read: () => Promise<T>,
          matches: (answer: T, state: State) => boolean,
        ) => {
          const from = committed;
          const answer = await read();
          const to = begun;
          for (let k = from; k <= Math.min(to, states.length - 1); k++)
            if (matches(answer, states[k]!)) return;
          // A transfer begun but not yet recorded in `states` (its commit still returning): wait for it.
          if (to >= states.length) {
            await writer;
            for (let k = from; k <= to; k++) if (matches(answer, states[k]!)) return;
          }
          failures.push(
            `${what}: ${String(answer instanceof Map ? [...answer] : JSON.stringify(answer, (_, v) => (typeof v === 'bigint' ? `${v}` : v)))} matches no state from ${from} to ${to}`,
          );
        };

        const reader = async (reads: readonly Read[], index: number) => {
          for (let i = 0; writing || i < reads.length; i++) {
            if (i >= reads.length * 4) break;
            const r = reads[i % reads.length]!;
            const addresses = r.wallets.map((w) => names[w]!);
            const owned = (state: State) => state.coins.filter((c) => addresses.includes(c.owner));
            if (r.kind === 'balance') {
              await checked(
                `balances of ${addresses}`,
                () => balances(addresses),
                (answer, state) =>
                  answer.size === addresses.length &&
                  addresses.every(
                    (a) =>
                      answer.get(a) ===
                      owned(state)
                        .filter((c) => c.owner === a)
                        .reduce((s, c) => s + c.amount, 0n),
                  ),
              );
            } else if (r.kind === 'utxos') {
              await checked(
                `utxos of ${addresses}`,
                async () =>
                  (await utxos({ addresses, page: 1, size: 1000, order: 'asc' })).map(
                    (o) => `${o.txid}_${o.vout}:${o.owner}:${o.amount}`,
                  ),
                (answer, state) => {
                  const expected = [...owned(state)]
                    .sort(byFeedOrder)
                    .map((c) => `${c.txid}_${c.vout}:${c.owner}:${c.amount}`);
                  return answer.length === expected.length && answer.every((o, j) => o === expected[j]);
                },
              );
            } else {
              await checked(
                `feed of ${addresses}`,
                async () =>
                  (await syncForAddresses(fresh.db, { addresses, from: 0n, limit: 0, order: 'asc' })).map(
                    (t) => t.txid,
                  ),
                (answer, state) => {
                  const expected = state.feed
                    .filter((e) => e.addresses.some((a) => addresses.includes(a)))
                    .map((e) => e.txid);
                  return answer.length === expected.length && answer.every((txid, j) => txid === expected[j]);
                },
              );
            }
            for (let p = scenario.pauses[(index + i) % scenario.pauses.length]!; p > 0; p--) await turn();
          }
        };

        await Promise.all([writer, ...scenario.readers.map((reads, i) => reader(reads, i))]);
        assert.deepEqual(failures, []);
      }),
      { numRuns: RUNS, includeErrorInReport: true },
    );
  });
});
