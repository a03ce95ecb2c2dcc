// bench:kept-counts — tickets by status and callback events by state, kept (migrations 041 and
// 042, docs/adr/0021-counts-kept-per-connection.md): what a read costs as rows accumulate
// (the tokenproxy_tickets and tokenproxy_outbox_events gauges at every scrape, the admin status,
// the console) and what keeping the counts costs a write. On a fresh PostgreSQL database
// (TEST_DATABASE_URL):
// - reads: each table grown in steps (events with a payload of a ticket's size); at each size
//   the kept read and the count it replaced (count(*) by value over the table), interleaved,
//   median of seven each, after checking that the two agree. Prints each read's milliseconds
//   and the ratio count / kept.
// - writes, on PostgreSQL and on PGlite (the embedded default): a statement moving 12 rows'
//   value (and back) and one updating another column of the same 12 (a schedule, a lease),
//   each timed with the counting triggers enabled and disabled, alternating, median of the
//   rounds. Prints each statement's microseconds and the ratio with / without.
import { performance } from 'node:perf_hooks';
import { EVENT_COUNTS } from '../src/store/callbacks/event-counts.js';
import type { Db } from '../src/store/db/db.js';
import { type KeptCounts, readKeptCounts } from '../src/store/db/kept-counts.js';
import { openPgliteDb } from '../src/store/db/pglite-db.js';
import { openPostgresDb } from '../src/store/db/postgres-db.js';
import { migrate } from '../src/store/migrate.js';
import { TICKET_COUNTS } from '../src/store/tickets/ticket-counts.js';
import { freshDatabase } from '../test/support/test-databases.js';
import { medianOf as median } from './median.js';

const SIZES = (process.env.BENCH_KEPT_COUNT_SIZES ?? '10000,100000,1000000').split(',').map(Number);
const ROUNDS = 7;
const WRITE_ROUNDS = Number(process.env.BENCH_KEPT_COUNT_WRITE_ROUNDS ?? 30);
const BATCH = 12;
const STATEMENTS_A_ROUND = 20;

/** A counted table: rows `from`..`to` added (mostly in a settled value), two values to move between, another column. */
interface Counted {
  readonly kept: KeptCounts<string>;
  grow(db: Db, from: number, to: number): Promise<unknown>;
  readonly settled: string;
  readonly moved: string;
  readonly other: { readonly set: string; readonly reset: string };
  readonly key: string;
}

const TICKETS: Counted = {
  kept: TICKET_COUNTS,
  grow: (db, from, to) =>
    db.query(
      `INSERT INTO tickets (id, txid, submitted_txid, status, status_rank, created_at, updated_at)
       SELECT gen_random_uuid(), 't' || i, 't' || i,
              CASE WHEN i % 1000 = 0 THEN 'SUCCESS' WHEN i % 1000 = 1 THEN 'BROADCASTING'
                   WHEN i % 100 = 2 THEN 'FAILED' ELSE 'MINED' END,
              0, now(), now()
         FROM generate_series($1::int, $2::int) i`,
      [from, to],
    ),
  settled: 'MINED',
  moved: 'SUCCESS',
  other: { set: 'next_check_at = now()', reset: 'next_check_at = NULL' },
  key: 'uuid',
};

const EVENTS: Counted = {
  kept: EVENT_COUNTS,
  // Three events a ticket, each carrying the ticket as a callback does (its transaction too).
  grow: (db, from, to) =>
    db.query(
      `WITH k AS (
         INSERT INTO tickets (id, txid, submitted_txid, status, status_rank, created_at, updated_at)
         SELECT gen_random_uuid(), 'e' || i, 'e' || i, 'MINED', 0, now(), now()
           FROM generate_series(($1::int + 2) / 3, $2::int / 3) i RETURNING id, txid)
       INSERT INTO events (ticket_id, webhook_id, seq, payload, state)
       SELECT k.id, k.txid || '_' || s, s,
              jsonb_build_object('id', k.id, 'tx_id', md5(k.txid) || md5(k.txid), 'tx_hex', repeat('ab', 350),
                                 'status', 'MINED', 'createdAt', now()),
              CASE WHEN s = 3 AND random() < 0.01 THEN 'pending' ELSE 'delivered' END
         FROM k, generate_series(1, 3) s`,
      [from, to],
    ),
  settled: 'delivered',
  moved: 'pending',
  other: { set: 'next_attempt_at = now()', reset: "next_attempt_at = now() - interval '1 second'" },
  key: 'bigint',
};

async function timed(run: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await run();
  return performance.now() - t;
}

async function reads(db: Db, counted: Counted): Promise<void> {
  const { kept } = counted;
  const countScan = () =>
    db.query<{ v: string; n: string }>(
      `SELECT ${kept.by} AS v, count(*)::text AS n FROM ${kept.counted} GROUP BY ${kept.by}`,
    );
  let rows = 0;
  for (const size of SIZES) {
    await counted.grow(db, rows + 1, size);
    rows = size;
    await db.query(`VACUUM ANALYZE ${kept.counted}`);
    const scanned = Object.fromEntries(Object.keys(kept.columns).map((v) => [v, 0]));
    for (const r of await countScan()) scanned[r.v] = Number(r.n);
    const keptNow = await readKeptCounts(db, kept);
    if (JSON.stringify(keptNow) !== JSON.stringify(scanned))
      throw new Error(
        `${kept.counted}: the two reads disagree at ${size}: ${JSON.stringify({ keptNow, scanned })}`,
      );
    const scans: number[] = [];
    const keeps: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      scans.push(await timed(countScan));
      keeps.push(await timed(() => readKeptCounts(db, kept)));
    }
    const s = median(scans);
    const k = median(keeps);
    const n = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${kept.counted}`))[0]!.n;
    console.log(
      `${kept.counted} counted at ${n} rows: count ${s.toFixed(2)} ms, kept ${k.toFixed(2)} ms; ratio count / kept ${(s / k).toFixed(1)}`,
    );
  }
}

async function writes(db: Db, on: string, counted: Counted): Promise<void> {
  const { kept } = counted;
  const rows = await db.query<{ id: string }>(
    `SELECT id::text AS id FROM ${kept.counted} WHERE ${kept.by} = $1 ORDER BY id LIMIT ${BATCH * STATEMENTS_A_ROUND}`,
    [counted.settled],
  );
  const batches = Array.from({ length: STATEMENTS_A_ROUND }, (_, i) =>
    rows.slice(i * BATCH, (i + 1) * BATCH).map((r) => r.id),
  );
  const where = `WHERE id = ANY($1::${counted.key}[])`;
  const statements = {
    [`${kept.by} moved`]: async (ids: string[]) => {
      await db.query(`UPDATE ${kept.counted} SET ${kept.by} = $2 ${where}`, [ids, counted.moved]);
      await db.query(`UPDATE ${kept.counted} SET ${kept.by} = $2 ${where}`, [ids, counted.settled]);
    },
    'another column': async (ids: string[]) => {
      await db.query(`UPDATE ${kept.counted} SET ${counted.other.set} ${where}`, [ids]);
      await db.query(`UPDATE ${kept.counted} SET ${counted.other.reset} ${where}`, [ids]);
    },
  };
  const triggers = (enabled: boolean) =>
    db.query(`ALTER TABLE ${kept.counted} ${enabled ? 'ENABLE' : 'DISABLE'} TRIGGER USER`);
  for (const [name, run] of Object.entries(statements)) {
    const withTriggers: number[] = [];
    const without: number[] = [];
    for (let r = 0; r < WRITE_ROUNDS; r++) {
      for (const enabled of r % 2 === 0 ? [true, false] : [false, true]) {
        await triggers(enabled);
        const ms = await timed(async () => {
          for (const ids of batches) await run(ids);
        });
        // Two statements a batch.
        (enabled ? withTriggers : without).push((ms * 1000) / (STATEMENTS_A_ROUND * 2));
      }
    }
    await triggers(true);
    const w = median(withTriggers);
    const o = median(without);
    console.log(
      `${on}: a ${BATCH}-row statement on ${kept.counted}, ${name}: with the counts ${w.toFixed(0)} us, without ${o.toFixed(0)} us; ratio with / without ${(w / o).toFixed(2)}`,
    );
  }
}

async function main(): Promise<void> {
  const url = process.env.TEST_DATABASE_URL;
  if (url === undefined || url === '') throw new Error('bench:kept-counts needs TEST_DATABASE_URL');
  const database = await freshDatabase(url, 'keptcounts');
  const db = await openPostgresDb(database.url, { max: 1 });
  try {
    await migrate(db);
    for (const counted of [TICKETS, EVENTS]) await reads(db, counted);
    for (const counted of [TICKETS, EVENTS]) await writes(db, 'PostgreSQL', counted);
  } finally {
    await db.close();
    await database.drop();
  }
  const embedded = await openPgliteDb('memory');
  try {
    await migrate(embedded);
    for (const counted of [TICKETS, EVENTS]) {
      await counted.grow(embedded, 1, 3000);
      await writes(embedded, 'PGlite', counted);
    }
  } finally {
    await embedded.close();
  }
}

await main();
