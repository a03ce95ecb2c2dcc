// bench:reads — the hot reads (a ticket, balances with the feed's stamp, the stamp alone, a page
// of unspent outputs, a submission batch's look-ups) on PostgreSQL, each run on the write path's connections (planned on every
// run: the baseline) and on the hot reads' own (planned once: store/db/postgres-db.ts), in
// interleaved blocks, one call at a time. Prints each read's time a call on both and the ratio
// (baseline / hot reads: above 1 is faster), the median of the rounds, and which one the service
// uses. On a ledger analyzed after it grew: a generic plan is frozen when a connection first runs
// the statement, so this does not show a plan made on a young ledger's statistics (why the page
// of outputs and the look-ups stay planned each run: docs/adr/0005-hot-reads-planned-once.md). Needs
// TEST_DATABASE_URL.
// Env: BENCH_READS_CALLS (calls per block, 300), BENCH_READS_ROUNDS (5).

import type { Queryable } from '../src/store/db/db.js';
import { openPostgresDb } from '../src/store/db/postgres-db.js';
import { migrate } from '../src/store/migrate.js';
import { submissionLookups } from '../src/store/submissions/submission-lookups.js';
import { ticketsById } from '../src/store/tickets/ticket-queries.js';
import { balancesWithStamp, feedStamp, unspentOutputPages } from '../src/store/wallets/wallet-queries.js';
import { randomTxid, seedTicket, seedTransaction } from '../test/support/seed-store.js';
import { freshDatabase } from '../test/support/test-databases.js';
import { medianOf as median } from './median.js';

const CALLS = Number(process.env.BENCH_READS_CALLS ?? 300);
const ROUNDS = Number(process.env.BENCH_READS_ROUNDS ?? 5);
const OWNERS = 3000;

type Read = (q: Queryable, i: number) => Promise<unknown>;

async function timePerCall(q: Queryable, read: Read): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < CALLS; i++) await read(q, i);
  return (performance.now() - started) / CALLS;
}

async function main(): Promise<void> {
  const url = process.env.TEST_DATABASE_URL;
  if (url === undefined || url === '') throw new Error('bench:reads needs TEST_DATABASE_URL');
  const database = await freshDatabase(url, 'reads');
  const db = await openPostgresDb(database.url);
  try {
    await migrate(db);
    // A ledger of 6,000 outputs of 3,000 owners, 2,000 more of four busy owners, and 1,000
    // tickets; the statistics taken after it.
    const owner = (i: number) => `owner${i % OWNERS}`;
    const outpoints: string[] = [];
    for (let t = 0; t < 60; t++) {
      const seeded = await seedTransaction(db, {
        senders: [],
        outputs: Array.from({ length: 100 }, (_, i) => ({ owner: owner(t * 100 + i), amount: 10n })),
      });
      outpoints.push(...seeded.outpoints);
    }
    // Four busy addresses (a deposit address, a merchant) with 500 outputs each.
    const busy = (i: number) => `busy${i % 4}`;
    for (let t = 0; t < 20; t++)
      await seedTransaction(db, {
        senders: [],
        outputs: Array.from({ length: 100 }, (_, i) => ({ owner: busy(i), amount: 10n })),
      });
    const ids: string[] = [];
    for (let t = 0; t < 1000; t++) ids.push(await seedTicket(db, {}));
    await db.query('ANALYZE');

    // Each read, and whether the service plans it once (store/wallets/read-batches.ts, balance-cache.ts).
    const reads: Record<string, [Read, 'once' | 'each run']> = {
      'ticket by id': [(q, i) => ticketsById(q, [ids[(i * 7) % ids.length]!]), 'once'],
      'balances of 4 with the stamp': [
        (q, i) => balancesWithStamp(q, [owner(i), owner(i + 1), owner(i + 2), owner(i + 3)]),
        'once',
      ],
      "the feed's stamp": [(q) => feedStamp(q), 'once'],
      'a page of unspent outputs': [
        (q, i) =>
          unspentOutputPages(q, [{ addresses: [owner(i), owner(i + 1)], page: 1, size: 10, order: 'asc' }]),
        'each run',
      ],
      "a submission batch's look-ups (4 transfers, 8 inputs)": [
        (q, i) =>
          submissionLookups(
            q,
            Array.from({ length: 4 }, () => randomTxid()),
            Array.from({ length: 8 }, (_, k) => outpoints[(i * 8 + k * 131) % outpoints.length]!),
          ),
        'each run',
      ],
      "a page of busy addresses' outputs": [
        (q, i) =>
          unspentOutputPages(q, [
            { addresses: [busy(i), busy(i + 1)], page: 1 + (i % 3), size: 10, order: 'asc' },
          ]),
        'each run',
      ],
    };
    const hot = db.reads!;
    console.log(`${ROUNDS} rounds of ${CALLS} calls a read on each kind of connection, one call at a time`);
    console.log(
      '| read | planned each run, ms a call | planned once, ms a call | ratio (rounds) | the service plans it |',
    );
    console.log('|---|---|---|---|---|');
    for (const [name, [read, service]] of Object.entries(reads)) {
      await timePerCall(db, read); // warm both: connections open, statements prepared
      await timePerCall(hot, read);
      const each: number[] = [];
      const once: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        each.push(await timePerCall(db, read));
        once.push(await timePerCall(hot, read));
      }
      const ratios = each.map((e, k) => e / once[k]!);
      console.log(
        `| ${name} | ${median(each).toFixed(3)} | ${median(once).toFixed(3)} | ${median(ratios).toFixed(2)} (${ratios.map((r) => r.toFixed(2)).join(' ')}) | ${service} |`,
      );
    }
  } finally {
    await db.close();
    await database.drop();
  }
}

await main();
